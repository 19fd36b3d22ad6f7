package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.wire.inproc.FaultConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Timeout;

/**
 * Every operation moves exactly the right bytes, from 1 byte to 64 MiB, with 1, 3 and 8 io queue
 * pairs, on a clean in-process wire and on one that drops, duplicates and reorders 10% of packets.
 * Offsets are deliberately unaligned; each transfer has its own pattern; a requests-per-op split
 * (maxRequestBytes 1 MiB, set here: the shm device's own request size is 16 MiB) makes large ops
 * span many requests and slots.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class TransferSizesTest {
    private static final long MAX = 64L << 20;
    private static final long SRC = 3;
    private static final long DST = MAX + 4096 + 5;
    private static final long[] SIZES = {1, 7, 4095, 4097, (1 << 20) + 7, 5L << 20, MAX};

    static Stream<Arguments> setups() {
        return Stream.of(
                Arguments.of(1, false), Arguments.of(3, false), Arguments.of(8, false),
                Arguments.of(1, true), Arguments.of(3, true), Arguments.of(8, true));
    }

    private static EndpointPair open(int qps, boolean faults, int maxRequestBytes) {
        EndpointConfig.Builder cfg = EndpointConfig.builder().qps(qps).requestsPerSlot(4).maxRequestBytes(maxRequestBytes);
        if (faults) {
            cfg.qpTemplate(EndpointPair.lossyQp());
        }
        return EndpointPair.open(cfg.build(), faults ? EndpointPair.faults(qps * 31L) : FaultConfig.NONE,
                DST + MAX + 64);
    }

    @ParameterizedTest(name = "qps {0}, faults {1}")
    @MethodSource("setups")
    void everyOperationIsByteExactAtEverySize(int qps, boolean faults) throws Exception {
        everyOperationIsByteExactAtEverySize(qps, faults, 1 << 20);
    }

    /** As above with {@code maxRequestBytes} (0: the device's own request size). */
    void everyOperationIsByteExactAtEverySize(int qps, boolean faults, int maxRequestBytes) throws Exception {
        try (EndpointPair p = open(qps, faults, maxRequestBytes)) {
            long seed = 100L * qps + (faults ? 1 : 0);
            for (long n : SIZES) {
                seed++;
                // write
                Patterns.fill(p.kvA, SRC, n, seed);
                ok(p.a.write(Assignment.local("kv", SRC).remote("kv", DST).length(n)), n);
                assertThat(Patterns.mismatch(p.kvB, DST, n, seed)).as("write of %d bytes", n).isEqualTo(-1);
                // read
                Patterns.fill(p.kvB, SRC, n, seed + 1000);
                ok(p.a.read(Assignment.local("kv", DST).remote("kv", SRC).length(n)), n);
                assertThat(Patterns.mismatch(p.kvA, DST, n, seed + 1000)).as("read of %d bytes", n).isEqualTo(-1);
                // write-with-imm, as a batch of two assignments: the immediate arrives after all of it
                Patterns.fill(p.kvA, SRC, n, seed + 2000);
                long half = n / 2;
                TransferFuture imm = p.b.immRecv();
                ok(p.a.writeWithImm(List.of(new Assignment("kv", SRC, "kv", DST, half),
                        new Assignment("kv", SRC + half, "kv", DST + half, n - half)), (int) n), n);
                assertThat(imm.await(Duration.ofSeconds(60))).isEqualTo(TransferStatus.SUCCESS);
                assertThat(imm.immediate()).isEqualTo((int) n);
                assertThat(Patterns.mismatch(p.kvB, DST, n, seed + 2000)).as("write-with-imm of %d bytes", n)
                        .isEqualTo(-1);
                // send / recv into a larger receive
                Patterns.fill(p.kvA, SRC, n, seed + 3000);
                TransferFuture recv = p.b.recv("kv", DST, n + 64);
                ok(p.a.send("kv", SRC, n), n);
                ok(recv, n);
                assertThat(Patterns.mismatch(p.kvB, DST, n, seed + 3000)).as("send of %d bytes", n).isEqualTo(-1);
            }
            p.awaitIdle(Duration.ofSeconds(10));
            p.assertClean();
        }
    }

    private static void ok(TransferFuture f, long bytes) throws Exception {
        assertThat(f.await(Duration.ofSeconds(60))).as("%s: %s", f, f.failureMessage()).isEqualTo(TransferStatus.SUCCESS);
        assertThat(f.byteCount()).as("byte count of %s", f).isEqualTo(bytes);
    }
}
