package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.wire.inproc.FaultConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * When slots or send-queue credits run out a call waits, bounded, and then fails with a clear
 * {@link EndpointBusyException}; never a wrong answer. Batches far larger than the pool stream
 * through it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BackPressureTest {

    @Test
    void batchesOfThousandsOfAssignmentsStreamThroughASmallPool() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().qps(4).ioSlots(4).requestsPerSlot(16).build();
        int n = 5000;
        int len = 100;
        try (EndpointPair p = EndpointPair.open(cfg, 4L * n * len)) {
            List<Assignment> batch = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                long src = (long) i * len;
                long dst = (long) (n - 1 - i) * len + 2L * n * len; // reversed, in the upper half
                Patterns.fill(p.kvA, src, len, i);
                batch.add(new Assignment("kv", src, "kv", dst, len));
            }
            TransferFuture imm = p.b.immRecv();
            TransferFuture w = success(p.a.writeWithImm(batch, 7), Duration.ofSeconds(60));
            assertThat(w.byteCount()).isEqualTo((long) n * len);
            assertThat(success(imm).immediate()).isEqualTo(7);
            for (int i = 0; i < n; i++) {
                assertThat(Patterns.mismatch(p.kvB, (long) (n - 1 - i) * len + 2L * n * len, len, i))
                        .as("assignment %d", i).isEqualTo(-1);
            }
            // and back, as a read batch
            List<Assignment> back = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                back.add(new Assignment("kv", 2L * n * len + (long) i * len, "kv", 2L * n * len + (long) i * len, len));
            }
            success(p.a.read(back), Duration.ofSeconds(60));
            assertThat(p.kvA.asSlice(2L * n * len, (long) n * len).mismatch(p.kvB.asSlice(2L * n * len, (long) n * len)))
                    .isEqualTo(-1);
            assertThat(p.a.ioPool().leases()).isGreaterThan(600);
            p.assertClean();
        }
    }

    @Test
    void manyThreadsShareATinyPoolAndShallowSendQueues() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().qps(2).ioSlots(2).requestsPerSlot(1).sendQueueDepth(2)
                .maxRequestBytes(512).build();
        int threads = 8;
        int ops = 300;
        try (EndpointPair p = EndpointPair.open(cfg, (long) threads * 4096)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < ops; i++) {
                            long off = id * 4096L;
                            int len = 1 + (i * 37) % 2000; // up to 4 requests, each needing a slot
                            Patterns.fill(p.kvA, off, len, id * 10_000L + i);
                            success(p.a.write(Assignment.local("kv", off).remote("kv", off).length(len)));
                            assertThat(Patterns.mismatch(p.kvB, off, len, id * 10_000L + i)).isEqualTo(-1);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : ts) {
                t.join();
            }
            assertThat(failure.get()).isNull();
            p.awaitIdle(Duration.ofSeconds(5));
            p.assertClean();
        }
    }

    @Test
    void anExhaustedRecvPoolFailsTheCallAfterTheBoundWithAClearError() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().messageSlots(2).slotTimeout(Duration.ofMillis(200)).build();
        try (EndpointPair p = EndpointPair.open(cfg, 1 << 16)) {
            p.b.recv("kv", 0, 64);
            p.b.recv("kv", 64, 64);
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> p.b.recv("kv", 128, 64)).isInstanceOf(EndpointBusyException.class)
                    .hasMessageContaining("no free recv slot").hasMessageContaining("back-pressure");
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(190));
            success(p.a.send("kv", 0, 64));
            success(p.a.send("kv", 0, 64));
            p.awaitIdle(Duration.ofSeconds(5));
            TransferFuture r = p.b.recv("kv", 128, 64);
            success(p.a.send("kv", 0, 64));
            success(r);
            p.assertClean();
        }
    }

    @Test
    void anExhaustedIoPoolFailsTheCallAfterTheBoundAndTheHeldOpStillSucceeds() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().ioSlots(1).slotTimeout(Duration.ofMillis(100)).build();
        try (EndpointPair p = EndpointPair.open(cfg, 1 << 16)) {
            p.wire.setFaults(FaultConfig.builder().dropRate(1.0).build()); // for a moment nothing gets through
            Patterns.fill(p.kvA, 0, 1000, 4);
            TransferFuture held = p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(1000));
            assertThatThrownBy(() -> p.a.write(Assignment.local("kv", 0).remote("kv", 2000).length(8))).isInstanceOf(EndpointBusyException.class)
                    .hasMessageContaining("no free io slot");
            assertThat(held.isDone()).isFalse();
            p.wire.setFaults(FaultConfig.NONE); // the retransmission gets through
            success(held);
            assertThat(Patterns.mismatch(p.kvB, 0, 1000, 4)).isEqualTo(-1);
            success(p.a.write(Assignment.local("kv", 0).remote("kv", 2000).length(8)));
            p.assertClean();
        }
    }

    @Test
    void aFailedQueuePairMakesLaterCallsFailAtTheCall() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().qpTemplate(io.slime4j.verbs.QpConfig.builder()
                .ackTimeout(Duration.ofMillis(5)).retryCount(1).build()).build();
        try (EndpointPair p = EndpointPair.open(cfg, 1 << 16)) {
            p.wire.setFaults(FaultConfig.builder().dropRate(1.0).build()); // the peer is gone
            TransferFuture lost = p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(100));
            assertThat(lost.await(Duration.ofSeconds(10))).isEqualTo(TransferStatus.FAILED);
            assertThat(lost.wcStatus()).isEqualTo(io.slime4j.verbs.WcStatus.RETRY_EXC_ERR);
            assertThatThrownBy(() -> p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(100))).isInstanceOf(EndpointException.class)
                    .hasMessageContaining("RETRY_EXC_ERR").hasMessageContaining("create a new one");
        }
    }

    @Test
    void closeReleasesCallersWaitingForASlotOrACredit() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().messageSlots(1).immWindow(1).build(); // 30 s slot timeout
        try (EndpointPair p = EndpointPair.open(cfg, 1 << 16)) {
            p.wire.setFaults(FaultConfig.builder().dropRate(1.0).build()); // nothing completes any more
            p.a.recv("kv", 0, 8);
            p.a.writeWithImm(List.of(), 1); // spends the one credit
            AtomicReference<Throwable> recvWaiter = new AtomicReference<>();
            AtomicReference<Throwable> immWaiter = new AtomicReference<>();
            Thread t1 = Thread.ofPlatform().start(() -> catching(recvWaiter, () -> p.a.recv("kv", 8, 8)));
            Thread t2 = Thread.ofPlatform().start(() -> catching(immWaiter, () -> p.a.writeWithImm(List.of(), 2)));
            Thread.sleep(100);
            assertThat(t1.isAlive() && t2.isAlive()).as("both callers wait for back-pressure").isTrue();
            long t0 = System.nanoTime();
            p.a.close();
            t1.join(10_000);
            t2.join(10_000);
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(10));
            assertThat(recvWaiter.get()).isInstanceOf(EndpointClosedException.class);
            assertThat(immWaiter.get()).isInstanceOf(EndpointClosedException.class);
        }
    }

    private static void catching(AtomicReference<Throwable> into, Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            into.set(t);
        }
    }
}
