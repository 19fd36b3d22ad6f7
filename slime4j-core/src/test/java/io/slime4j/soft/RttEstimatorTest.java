package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The retransmit timeout follows the samples (RFC 6298's estimator), floored at the ACK timeout. */
class RttEstimatorTest {
    private static final long ACK_TIMEOUT = 1_000_000;

    @Test
    void theTimeoutIsTheAckTimeoutUntilRoundTripsNeedMore() {
        RttEstimator rtt = new RttEstimator(ACK_TIMEOUT);
        assertThat(rtt.rto()).isEqualTo(ACK_TIMEOUT);
        for (int i = 0; i < 50; i++) {
            rtt.sample(10_000_000);
        }
        assertThat(rtt.rto()).as("srtt plus four variations, after samples of 10 ms").isBetween(10_000_000L, 12_000_000L);
        for (int i = 0; i < 200; i++) {
            rtt.sample(20_000);
        }
        assertThat(rtt.rto()).as("back at the floor once round trips are short again").isEqualTo(ACK_TIMEOUT);
        assertThat(rtt.backoff(2)).isEqualTo(4 * ACK_TIMEOUT);
    }
}
