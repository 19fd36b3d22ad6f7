package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.wire.inproc.FaultConfig;
import io.slime4j.wire.inproc.InprocWire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mixed traffic from several threads over two rails (two dispatch threads per endpoint), on lossy
 * wires: one-sided writes read back and compared, write-with-imm in order from one thread, and
 * send/recv pairs, all byte-exact, with no detector firing.
 */
@Timeout(240)
class RailStressTest {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final long SLICE = 2 << 20;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"striped", "round-robin", "round-robin-all"})
    void mixedTrafficOverTwoLossyRailsStaysByteExact(String selector) throws Exception {
        EndpointConfig c = EndpointConfig.builder().qps(4).selector(selector).maxRequestBytes(32 << 10)
                .stripeMinBytes(16 << 10).ioSlots(64).requestsPerSlot(4).build();
        try (RailPair p = RailPair.inproc(2, c, 16 * SLICE)) {
            long seed = 17;
            for (InprocWire w : p.inprocWires) {
                w.setFaults(EndpointPair.faults(seed++));
            }
            ExecutorService pool = Executors.newFixedThreadPool(5);
            try {
                List<Future<?>> runs = new ArrayList<>();
                for (int t = 0; t < 3; t++) {
                    int thread = t;
                    runs.add(pool.submit(() -> {
                        oneSided(p, thread);
                        return null;
                    }));
                }
                runs.add(pool.submit(() -> {
                    immediates(p);
                    return null;
                }));
                runs.add(pool.submit(() -> {
                    messages(p);
                    return null;
                }));
                for (Future<?> f : runs) {
                    f.get(200, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            p.assertClean();
            assertThat(p.a.router().isDead(0) || p.a.router().isDead(1) || p.a.router().isDead(2)
                    || p.a.router().isDead(3)).as("no lane failed on a lossy (not dead) wire").isFalse();
        }
    }

    /** Writes random ranges of its slice, reads them back into another slice and compares. */
    private static void oneSided(RailPair p, int thread) throws InterruptedException {
        SplittableRandom rnd = new SplittableRandom(thread);
        long src = thread * 2 * SLICE;
        long back = src + SLICE;
        for (int i = 0; i < 40; i++) {
            long len = 1 + rnd.nextLong(SLICE / 2);
            long off = rnd.nextLong(SLICE - len);
            long s = thread * 1000L + i;
            Patterns.fill(p.kvA, src + off, len, s);
            success(p.a.write(Assignment.local("kv", src + off).remote("kv", src + off).length(len)), WAIT);
            success(p.a.read(Assignment.local("kv", back + off).remote("kv", src + off).length(len)), WAIT);
            assertThat(Patterns.mismatch(p.kvA, back + off, len, s)).as("thread %d round %d", thread, i).isEqualTo(-1);
        }
    }

    /** Write-with-imm, one at a time: each immediate arrives after its bytes, in order. */
    private static void immediates(RailPair p) throws InterruptedException {
        long base = 6 * SLICE;
        for (int i = 0; i < 30; i++) {
            long len = 1 + (i * 77_777L) % SLICE;
            Patterns.fill(p.kvA, base, len, 500 + i);
            TransferFuture got = p.b.immRecv();
            success(p.a.writeWithImm(List.of(Assignment.local("kv", base).remote("kv", base).length(len)), 1000 + i), WAIT);
            assertThat(success(got, WAIT).immediate()).isEqualTo(1000 + i);
            assertThat(Patterns.mismatch(p.kvB, base, len, 500 + i)).isEqualTo(-1);
        }
    }

    /** Send/recv pairs in both directions. */
    private static void messages(RailPair p) throws InterruptedException {
        long base = 8 * SLICE;
        for (int i = 0; i < 30; i++) {
            long len = 1 + (i * 33_333L) % SLICE;
            RdmaEndpoint from = i % 2 == 0 ? p.a : p.b;
            RdmaEndpoint to = i % 2 == 0 ? p.b : p.a;
            java.lang.foreign.MemorySegment src = i % 2 == 0 ? p.kvA : p.kvB;
            java.lang.foreign.MemorySegment dst = i % 2 == 0 ? p.kvB : p.kvA;
            Patterns.fill(src, base, len, 900 + i);
            TransferFuture r = to.recv("kv", base + SLICE, SLICE);
            success(from.send("kv", base, len), WAIT);
            assertThat(success(r, WAIT).byteCount()).isEqualTo(len);
            assertThat(Patterns.mismatch(dst, base + SLICE, len, 900 + i)).isEqualTo(-1);
        }
    }
}
