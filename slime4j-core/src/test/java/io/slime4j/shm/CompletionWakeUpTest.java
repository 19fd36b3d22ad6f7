package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wake-up of threads blocked on a completion queue: the agent wakes them once per queue pair's
 * turn (after pushing what the turn brought), and a thread that is not the agent (the one closing a
 * device after its agent stopped) wakes them at once. Either way no completion is left unseen by a
 * blocked waiter for longer than it takes to be produced.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompletionWakeUpTest {
    private static final int WRITES = 16;

    @Test
    void aWaiterBlockedInAwaitIsWokenByTheAgentAndGetsEveryCompletion() throws Exception {
        try (Arena arena = Arena.ofShared();
             ShmDevice a = ShmDevice.open(ShmConfig.builder().name("wake-a").build());
             ShmDevice b = ShmDevice.open(ShmConfig.builder().name("wake-b").build())) {
            ProtectionDomain pdA = a.allocateProtectionDomain();
            ProtectionDomain pdB = b.allocateProtectionDomain();
            MemoryRegion src = pdA.register(arena.allocate(WRITES * 4096L, 64), AccessFlags.ALL);
            MemoryRegion dst = pdB.register(arena.allocate(WRITES * 4096L, 64), AccessFlags.ALL);
            CompletionQueue scq = a.createCompletionQueue(64);
            QueuePair qa = a.createQueuePair(pdA, QpConfig.defaults(), scq, a.createCompletionQueue(64));
            QueuePair qb = b.createQueuePair(pdB, QpConfig.defaults(), b.createCompletionQueue(64),
                    b.createCompletionQueue(64));
            qa.connect(qb.localInfo());
            qb.connect(qa.localInfo());

            CompletableFuture<List<Long>> waited = CompletableFuture.supplyAsync(() -> collect(scq, WRITES));
            Thread.sleep(50); // the waiter parks in await first
            long start = System.nanoTime();
            RemoteRegion remote = RemoteRegion.of(dst);
            WorkRequest wr = new WorkRequest();
            for (int i = 0; i < WRITES; i++) {
                qa.postSend(wr.clear().wrId(i).opcode(Opcode.RDMA_WRITE).remote(remote, i * 4096L)
                        .sge(src, i * 4096L, 4096));
            }
            List<Long> ids = waited.get(30, TimeUnit.SECONDS);
            assertThat(ids).as("completed requests in order").containsExactlyElementsOf(
                    java.util.stream.LongStream.range(0, WRITES).boxed().toList());
            assertThat(System.nanoTime() - start).as("nanoseconds until the waiter had all of them")
                    .isLessThan(TimeUnit.SECONDS.toNanos(10));
        }
    }

    @Test
    void aCompletionPushedOffTheAgentThreadWakesABlockedWaiterAtOnce() throws Exception {
        try (Arena arena = Arena.ofShared();
             ShmDevice b = ShmDevice.open(ShmConfig.builder().name("wake-off-b").build())) {
            ShmDevice a = ShmDevice.open(ShmConfig.builder().name("wake-off-a").build());
            ProtectionDomain pdA = a.allocateProtectionDomain();
            MemoryRegion buffer = pdA.register(arena.allocate(4096, 64), AccessFlags.ALL);
            CompletionQueue rcq = a.createCompletionQueue(8);
            QueuePair qa = a.createQueuePair(pdA, QpConfig.defaults(), a.createCompletionQueue(8), rcq);
            QueuePair qb = b.createQueuePair(b.allocateProtectionDomain(), QpConfig.defaults(),
                    b.createCompletionQueue(8), b.createCompletionQueue(8));
            qa.connect(qb.localInfo());
            qb.connect(qa.localInfo());
            qa.postRecv(new WorkRequest().wrId(7).sge(buffer, 0, 4096)); // never consumed

            CompletableFuture<WorkCompletion> waited = CompletableFuture.supplyAsync(() -> {
                WorkCompletion[] wcs = WorkCompletion.array(1);
                try {
                    return rcq.await(wcs, 20, TimeUnit.SECONDS) == 1 ? wcs[0] : null;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(50);
            long start = System.nanoTime();
            a.close(); // the agent stops first; the closing thread flushes the receive
            WorkCompletion wc = waited.get(30, TimeUnit.SECONDS);
            assertThat(wc).as("the flushed receive").isNotNull();
            assertThat(wc.wrId()).isEqualTo(7);
            assertThat(wc.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
            assertThat(System.nanoTime() - start).as("nanoseconds from close to the waiter having it")
                    .isLessThan(TimeUnit.SECONDS.toNanos(15));
        }
    }

    private static List<Long> collect(CompletionQueue cq, int n) {
        WorkCompletion[] wcs = WorkCompletion.array(n);
        List<Long> ids = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try {
            while (ids.size() < n && System.nanoTime() < deadline) {
                int k = cq.await(wcs, 20, TimeUnit.SECONDS);
                for (int i = 0; i < k; i++) {
                    assertThat(wcs[i].status()).isEqualTo(WcStatus.SUCCESS);
                    ids.add(wcs[i].wrId());
                }
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return ids;
    }
}
