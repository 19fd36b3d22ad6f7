package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SmokeTest {
    @Test
    void everyOperationWorksOnce() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().qps(2).build(), 1 << 20)) {
            Patterns.fill(p.kvA, 0, 4096, 1);
            TransferFuture w = p.a.write(List.of(Assignment.of("kv", "kv", 0, 4096)));
            assertThat(w.await(5, TimeUnit.SECONDS)).isEqualTo(TransferStatus.SUCCESS);
            assertThat(Patterns.mismatch(p.kvB, 0, 4096, 1)).isEqualTo(-1);
            Patterns.fill(p.kvB, 8192, 1000, 2);
            TransferFuture r = p.a.read("kv", 8192, "kv", 8192, 1000);
            assertThat(r.await(5, TimeUnit.SECONDS)).isEqualTo(TransferStatus.SUCCESS);
            assertThat(Patterns.mismatch(p.kvA, 8192, 1000, 2)).isEqualTo(-1);
            TransferFuture ir = p.b.immRecv();
            Patterns.fill(p.kvA, 20000, 3 << 20 >> 4, 3);
            TransferFuture wi = p.a.writeWithImm(List.of(Assignment.of("kv", "kv", 20000, 3 << 20 >> 4),
                    Assignment.of("kv", "kv", 300000, 10)), 42);
            assertThat(wi.await(5, TimeUnit.SECONDS)).isEqualTo(TransferStatus.SUCCESS);
            assertThat(ir.await(5, TimeUnit.SECONDS)).isEqualTo(TransferStatus.SUCCESS);
            assertThat(ir.immediate()).isEqualTo(42);
            assertThat(Patterns.mismatch(p.kvB, 20000, 3 << 20 >> 4, 3)).isEqualTo(-1);
            Patterns.fill(p.kvA, 500000, 777, 4);
            TransferFuture rv = p.b.recv("kv", 600000, 1000);
            TransferFuture sd = p.a.send("kv", 500000, 777);
            assertThat(sd.await(5, TimeUnit.SECONDS)).isEqualTo(TransferStatus.SUCCESS);
            assertThat(rv.await(5, TimeUnit.SECONDS)).isEqualTo(TransferStatus.SUCCESS);
            assertThat(rv.byteCount()).isEqualTo(777);
            assertThat(Patterns.mismatch(p.kvB, 600000, 777, 4)).isEqualTo(-1);
            p.awaitIdle(java.time.Duration.ofSeconds(5));
            p.assertClean();
        }
    }
}
