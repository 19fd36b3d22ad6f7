package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Two-sided send/recv: rendezvous, pair ordering, both directions, far more messages than slots. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MessagePathTest {

    @Test
    void theKthSendFillsTheKthRecvWhicheverIsCalledFirst() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 20)) {
            List<TransferFuture> recvs = new ArrayList<>();
            List<TransferFuture> sends = new ArrayList<>();
            for (int k = 0; k < 40; k++) {
                int len = 10 + k * 13;
                Patterns.fill(p.kvA, k * 1024L, len, k);
                if (k % 2 == 0) { // recv first
                    recvs.add(p.b.recv("kv", k * 1024L, 1024));
                    sends.add(p.a.send("kv", k * 1024L, len));
                } else { // send first
                    sends.add(p.a.send("kv", k * 1024L, len));
                    recvs.add(p.b.recv("kv", k * 1024L, 1024));
                }
            }
            for (int k = 0; k < 40; k++) {
                int len = 10 + k * 13;
                assertThat(success(sends.get(k)).byteCount()).isEqualTo(len);
                assertThat(success(recvs.get(k)).byteCount()).isEqualTo(len);
                assertThat(Patterns.mismatch(p.kvB, k * 1024L, len, k)).as("message %d", k).isEqualTo(-1);
            }
            // a zero-length message
            TransferFuture r0 = p.b.recv("kv", 0, 16);
            success(p.a.send("kv", 0, 0));
            assertThat(success(r0).byteCount()).isZero();
            p.assertClean();
        }
    }

    @Test
    void thousandsOfMessagesBothWaysThroughAFewSlots() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().messageSlots(4).build();
        int n = 2000;
        try (EndpointPair p = EndpointPair.open(cfg, 1 << 20)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> ts = new ArrayList<>();
            for (boolean aToB : new boolean[] {true, false}) {
                RdmaEndpoint from = aToB ? p.a : p.b;
                RdmaEndpoint to = aToB ? p.b : p.a;
                java.lang.foreign.MemorySegment src = aToB ? p.kvA : p.kvB;
                java.lang.foreign.MemorySegment dst = aToB ? p.kvB : p.kvA;
                long base = aToB ? 0 : 1 << 19;
                ts.add(Thread.ofPlatform().start(() -> run(failure, () -> { // sender: 8 lanes
                    SplittableRandom rnd = new SplittableRandom(aToB ? 1 : 2);
                    TransferFuture[] lanes = new TransferFuture[8];
                    for (int k = 0; k < n; k++) {
                        int lane = k % 8;
                        if (lanes[lane] != null) {
                            success(lanes[lane]);
                        }
                        int len = 1 + rnd.nextInt(4000);
                        Patterns.fill(src, base + lane * 4096L, len, k * 2L + (aToB ? 0 : 1));
                        lanes[lane] = from.send("kv", base + lane * 4096L, len);
                    }
                    for (TransferFuture f : lanes) {
                        success(f);
                    }
                })));
                ts.add(Thread.ofPlatform().start(() -> run(failure, () -> { // receiver: 8 lanes, checks each in order
                    SplittableRandom rnd = new SplittableRandom(aToB ? 1 : 2);
                    TransferFuture[] lanes = new TransferFuture[8];
                    int[] lens = new int[8];
                    for (int k = 0; k < n + 8; k++) {
                        int lane = k % 8;
                        if (lanes[lane] != null) {
                            int j = k - 8;
                            assertThat(success(lanes[lane]).byteCount()).isEqualTo(lens[lane]);
                            assertThat(Patterns.mismatch(dst, base + 65536 + lane * 4096L, lens[lane], j * 2L + (aToB ? 0 : 1)))
                                    .as("message %d", j).isEqualTo(-1);
                        }
                        if (k < n) {
                            lens[lane] = 1 + rnd.nextInt(4000);
                            lanes[lane] = to.recv("kv", base + 65536 + lane * 4096L, 4096);
                        }
                    }
                })));
            }
            for (Thread t : ts) {
                t.join();
            }
            assertThat(failure.get()).isNull();
            p.awaitIdle(Duration.ofSeconds(5));
            p.assertClean();
        }
    }

    interface Body {
        void run() throws Exception;
    }

    static void run(AtomicReference<Throwable> failure, Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }
}
