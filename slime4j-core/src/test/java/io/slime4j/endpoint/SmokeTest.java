package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
            TransferFuture w = p.a.write(List.of(Assignment.local("kv", 0).remote("kv", 0).length(4096)));
            assertThat(w.await(Duration.ofSeconds(5))).isEqualTo(TransferStatus.SUCCESS);
            assertThat(Patterns.mismatch(p.kvB, 0, 4096, 1)).isEqualTo(-1);
            Patterns.fill(p.kvB, 8192, 1000, 2);
            TransferFuture r = p.a.read(Assignment.local("kv", 8192).remote("kv", 8192).length(1000));
            assertThat(r.await(Duration.ofSeconds(5))).isEqualTo(TransferStatus.SUCCESS);
            assertThat(Patterns.mismatch(p.kvA, 8192, 1000, 2)).isEqualTo(-1);
            TransferFuture ir = p.b.immRecv();
            Patterns.fill(p.kvA, 20000, 3 << 20 >> 4, 3);
            TransferFuture wi = p.a.writeWithImm(List.of(Assignment.local("kv", 20000).remote("kv", 20000).length(3 << 20 >> 4),
                    Assignment.local("kv", 300000).remote("kv", 300000).length(10)), 42);
            assertThat(wi.await(Duration.ofSeconds(5))).isEqualTo(TransferStatus.SUCCESS);
            assertThat(ir.await(Duration.ofSeconds(5))).isEqualTo(TransferStatus.SUCCESS);
            assertThat(ir.immediate()).isEqualTo(42);
            assertThat(Patterns.mismatch(p.kvB, 20000, 3 << 20 >> 4, 3)).isEqualTo(-1);
            Patterns.fill(p.kvA, 500000, 777, 4);
            TransferFuture rv = p.b.recv("kv", 600000, 1000);
            TransferFuture sd = p.a.send("kv", 500000, 777);
            assertThat(sd.await(Duration.ofSeconds(5))).isEqualTo(TransferStatus.SUCCESS);
            assertThat(rv.await(Duration.ofSeconds(5))).isEqualTo(TransferStatus.SUCCESS);
            assertThat(rv.byteCount()).isEqualTo(777);
            assertThat(Patterns.mismatch(p.kvB, 600000, 777, 4)).isEqualTo(-1);
            p.awaitIdle(java.time.Duration.ofSeconds(5));
            p.assertClean();
        }
    }
}
