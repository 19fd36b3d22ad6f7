package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.WcStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@link Keepalive} driven by a test clock: when a probe goes out, and what its completion does. */
class KeepaliveTest {
    private static final long SECOND = 1_000_000_000L;

    private final List<Long> posted = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private final AtomicBoolean connected = new AtomicBoolean(true);

    private Keepalive keepalive(long interval) {
        return new Keepalive("test", interval, 0, connected::get, posted::add,
                (status, why) -> failures.add(status + ": " + why));
    }

    @Test
    void anIdleRailGetsOneProbeAfterTheInterval_andNoSecondWhileItIsOutstanding() {
        Keepalive k = keepalive(2 * SECOND);
        assertThat(k.tick(SECOND)).isFalse();
        assertThat(k.tick(2 * SECOND)).as("idle for the interval").isTrue();
        assertThat(posted).containsExactly(Keepalive.wrId());
        assertThat(WrIds.kind(posted.getFirst())).isEqualTo(WrIds.KEEPALIVE);
        assertThat(k.isProbing()).isTrue();
        assertThat(k.tick(10 * SECOND)).as("one probe outstanding at most").isFalse();
        assertThat(k.probes()).isEqualTo(1);
    }

    @Test
    void trafficPostponesTheProbe_soABusyRailCarriesNone() {
        Keepalive k = keepalive(2 * SECOND);
        for (long t = 0; t <= 20 * SECOND; t += SECOND / 2) {
            k.traffic(t);
            assertThat(k.tick(t)).isFalse();
        }
        assertThat(k.tick(21 * SECOND)).isFalse();
        assertThat(k.tick(22 * SECOND)).as("idle for the interval since the last completion").isTrue();
    }

    @Test
    void anAnsweredProbeAllowsTheNextOneAnIntervalLater() {
        Keepalive k = keepalive(SECOND);
        assertThat(k.tick(SECOND)).isTrue();
        k.onCompletion(WcStatus.SUCCESS, 5);
        k.traffic(SECOND + 1_000_000);
        assertThat(k.isProbing()).isFalse();
        assertThat(k.tick(SECOND + SECOND / 2)).isFalse();
        assertThat(k.tick(2 * SECOND + 1_000_000)).isTrue();
        assertThat(failures).isEmpty();
    }

    @Test
    void aProbeThatRunsOutOfRetriesFailsTheEndpointWithTheReason() {
        Keepalive k = keepalive(SECOND);
        k.tick(SECOND);
        k.onCompletion(WcStatus.RETRY_EXC_ERR, 7);
        assertThat(failures).containsExactly("RETRY_EXC_ERR: the keepalive probe on queue pair 7 failed with "
                + "RETRY_EXC_ERR (the peer stopped answering)");
    }

    @Test
    void aFlushedProbeFailsNothing() {
        Keepalive k = keepalive(SECOND);
        k.tick(SECOND);
        k.onCompletion(WcStatus.WR_FLUSH_ERR, 7);
        assertThat(failures).isEmpty();
        assertThat(k.isProbing()).isFalse();
    }

    @Test
    void noProbeBeforeConnect_andTheIdleTimeCountsFromWhenProbingMayBegin() {
        connected.set(false);
        Keepalive k = keepalive(SECOND);
        assertThat(k.tick(10 * SECOND)).isFalse();
        connected.set(true);
        assertThat(k.tick(10 * SECOND + SECOND / 2)).as("connected half an interval ago").isFalse();
        assertThat(k.tick(11 * SECOND)).isTrue();
    }

    @Test
    void zeroIntervalTurnsItOff() {
        Keepalive k = keepalive(0);
        assertThat(k.tick(Long.MAX_VALUE / 2)).isFalse();
        assertThat(posted).isEmpty();
    }

    @Test
    void aProbeTheQueuePairRefusesIsNotCountedAsOutstanding() {
        Keepalive k = new Keepalive("test", SECOND, 0, () -> true, id -> {
            throw new IllegalStateException("queue pair in ERR");
        }, (s, w) -> failures.add(w));
        assertThat(k.tick(SECOND)).isFalse();
        assertThat(k.isProbing()).isFalse();
        assertThat(failures).isEmpty();
    }
}
