package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.inproc.FaultConfig;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The request size an endpoint cuts one-sided transfers at: by default the device's
 * ({@link VerbsDevice#preferredRequestBytes()}), 1 MiB on the soft engine; an explicit
 * {@code maxRequestBytes} wins. (The shm device's 16 MiB: {@code ShmEndpointTest}.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RequestSizeTest {

    @Test
    void aDefaultEndpointOnTheSoftEngineCutsAtOneMebibyte() throws Exception {
        assertThat(requestsOfOneWrite(EndpointConfig.defaults(), 4 << 20)).isEqualTo(4);
    }

    @Test
    void anExplicitRequestSizeWins() throws Exception {
        assertThat(requestsOfOneWrite(EndpointConfig.builder().maxRequestBytes(256 << 10).build(), 4 << 20))
                .isEqualTo(16);
        assertThat(requestsOfOneWrite(EndpointConfig.builder().maxRequestBytes(8 << 20).build(), 4 << 20))
                .isEqualTo(1);
    }

    /** Send requests device A posted for one byte-checked write of {@code length} (the least of 3: a keepalive may add one). */
    private static long requestsOfOneWrite(EndpointConfig config, int length) throws Exception {
        try (EndpointPair p = EndpointPair.open(config, FaultConfig.NONE, 2L * length)) {
            long least = Long.MAX_VALUE;
            for (int i = 0; i < 3; i++) {
                Patterns.fill(p.kvA, 0, length, i);
                long before = p.deviceA.counters().get(Counter.WR_POSTED);
                TransferFuture w = p.a.write(Assignment.local("kv", 0).remote("kv", length).length(length));
                assertThat(w.join(Duration.ofSeconds(20)).status()).isEqualTo(TransferStatus.SUCCESS);
                least = Math.min(least, p.deviceA.counters().get(Counter.WR_POSTED) - before);
                assertThat(Patterns.mismatch(p.kvB, length, length, i)).isEqualTo(-1);
            }
            return least;
        }
    }
}
