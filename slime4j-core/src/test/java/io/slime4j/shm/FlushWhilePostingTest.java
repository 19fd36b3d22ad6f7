package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.VerbsException;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Moving queue pairs to ERR while threads keep posting to them and polling their completions (as
 * an endpoint failure does) flushes every outstanding request, published or not, without the
 * device's agent ever failing: each request gives back the region uses it holds exactly once.
 * Closing queue pairs from other threads while their device closes must leave the flushing to one
 * thread. The races guarded here depend on timing: the tests are a guard, not a reproducer.
 */
class FlushWhilePostingTest {
    private static final int PAIRS = 4;
    private static final int ROUNDS = 30;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void queuePairsMovedToErrWithRequestsOutstandingAndBeingPostedFlushWithoutAgentErrors() throws Exception {
        try (Arena arena = Arena.ofShared();
             ShmDevice a = ShmDevice.open(ShmConfig.builder().name("flush-a").build());
             ShmDevice b = ShmDevice.open(ShmConfig.builder().name("flush-b").build())) {
            ProtectionDomain pdA = a.allocateProtectionDomain();
            ProtectionDomain pdB = b.allocateProtectionDomain();
            MemoryRegion src = pdA.register(arena.allocate(1 << 16, 64), AccessFlags.ALL);
            MemoryRegion dst = pdB.register(arena.allocate(1 << 16, 64), AccessFlags.ALL);
            RemoteRegion remote = RemoteRegion.of(dst);
            QpConfig config = QpConfig.builder().sendQueueDepth(8).recvQueueDepth(8).maxSge(3).build();
            for (int round = 0; round < ROUNDS; round++) {
                runRound(a, b, pdA, pdB, src, remote, config, round);
                assertThat(a.counters().get(Counter.AGENT_ERRORS)).as("agent errors of A after round %d", round)
                        .isZero();
                assertThat(b.counters().get(Counter.AGENT_ERRORS)).as("agent errors of B after round %d", round)
                        .isZero();
            }
            // every request gave back its uses: deregistration does not have to wait for any
            long start = System.nanoTime();
            src.close();
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(2));
            dst.close();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void queuePairsClosedWhileTheirDeviceClosesAreFlushedByOneThreadOnly() throws Exception {
        for (int round = 0; round < 40; round++) {
            try (Arena arena = Arena.ofShared();
                 ShmDevice b = ShmDevice.open(ShmConfig.builder().name("close-b" + round).build())) {
                ShmDevice a = ShmDevice.open(ShmConfig.builder().name("close-a" + round).build());
                ProtectionDomain pdA = a.allocateProtectionDomain();
                ProtectionDomain pdB = b.allocateProtectionDomain();
                MemoryRegion src = pdA.register(arena.allocate(1 << 16, 64), AccessFlags.ALL);
                MemoryRegion dst = pdB.register(arena.allocate(1 << 16, 64), AccessFlags.ALL);
                RemoteRegion remote = RemoteRegion.of(dst);
                QpConfig config = QpConfig.builder().sendQueueDepth(64).recvQueueDepth(8).maxSge(3).build();
                List<QueuePair> qps = new ArrayList<>();
                List<Thread> threads = new ArrayList<>();
                AtomicBoolean stop = new AtomicBoolean();
                for (int p = 0; p < PAIRS; p++) {
                    CompletionQueue scq = a.createCompletionQueue(4096);
                    QueuePair qa = a.createQueuePair(pdA, config, scq, a.createCompletionQueue(64));
                    QueuePair qb = b.createQueuePair(pdB, config, b.createCompletionQueue(64),
                            b.createCompletionQueue(64));
                    qa.connect(qb.localInfo());
                    qb.connect(qa.localInfo());
                    qps.add(qa);
                    int seed = round * 31 + p;
                    threads.add(Thread.ofPlatform().start(() -> post(qa, src, remote, stop, seed)));
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3));
                for (QueuePair qp : qps) {
                    qp.modifyToError();
                }
                List<Thread> closers = new ArrayList<>();
                for (QueuePair qp : qps) {
                    closers.add(Thread.ofPlatform().start(() -> {
                        for (int k = 0; k < 50; k++) {
                            try {
                                qp.close();
                                return;
                            } catch (RuntimeException e) {
                                Thread.onSpinWait();
                            }
                        }
                    }));
                }
                a.close();
                stop.set(true);
                for (Thread t : closers) {
                    t.join(10_000);
                }
                for (Thread t : threads) {
                    t.join(10_000);
                }
                assertThat(a.counters().get(Counter.AGENT_ERRORS)).as("agent errors in round %d", round).isZero();
            }
        }
    }

    private static void runRound(ShmDevice a, ShmDevice b, ProtectionDomain pdA, ProtectionDomain pdB,
                                 MemoryRegion src, RemoteRegion remote, QpConfig config, int round) throws Exception {
        List<QueuePair> qps = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        for (int p = 0; p < PAIRS; p++) {
            CompletionQueue scq = a.createCompletionQueue(1024);
            CompletionQueue rcq = a.createCompletionQueue(64);
            CompletionQueue peerScq = b.createCompletionQueue(64);
            CompletionQueue peerRcq = b.createCompletionQueue(64);
            QueuePair qa = a.createQueuePair(pdA, config, scq, rcq);
            QueuePair qb = b.createQueuePair(pdB, config, peerScq, peerRcq);
            qa.connect(qb.localInfo());
            qb.connect(qa.localInfo());
            qps.add(qa);
            qps.add(qb);
            int pair = p;
            threads.add(Thread.ofPlatform().start(() -> post(qa, src, remote, stop, round * 31 + pair)));
            threads.add(Thread.ofPlatform().start(() -> poll(scq, stop)));
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2 + round % 7));
        for (int i = 0; i < qps.size(); i += 2) {
            qps.get(i).modifyToError();
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        stop.set(true);
        for (Thread t : threads) {
            t.join(10_000);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        for (QueuePair qp : qps) {
            qp.close();
        }
    }

    /** Writes of one to three SGEs, every third unsignaled, every seventeenth with a bad local key. */
    private static void post(QueuePair qp, MemoryRegion src, RemoteRegion remote, AtomicBoolean stop, int seed) {
        WorkRequest wr = new WorkRequest();
        long n = seed;
        while (!stop.get()) {
            n++;
            wr.clear().wrId(n).opcode(Opcode.RDMA_WRITE).remote(remote, (n % 64) * 64).signaled(n % 3 != 0);
            int sges = 1 + (int) (n % 3);
            for (int s = 0; s < sges; s++) {
                if (n % 17 == 0 && s == sges - 1) {
                    wr.sge(src.address(), 16, src.localKey() ^ 0x5A5A);
                } else {
                    wr.sge(src, s * 64L, 16);
                }
            }
            try {
                qp.postSend(wr);
            } catch (VerbsException e) {
                Thread.onSpinWait(); // full, or closed: keep going until told to stop
            }
        }
    }

    private static void poll(CompletionQueue cq, AtomicBoolean stop) {
        WorkCompletion[] wcs = WorkCompletion.array(16);
        while (!stop.get()) {
            try {
                cq.poll(wcs);
            } catch (VerbsException e) {
                return;
            }
        }
    }
}
