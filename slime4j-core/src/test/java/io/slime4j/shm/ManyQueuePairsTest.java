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
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two devices with 300 connected queue pairs that stay idle and one pair that works: the duty
 * cycles run the working pair's turns, not 301 turns each ({@link ReadyMask}), and every path that
 * gives a queue pair work marks it, so no turn finds work only because a sweep ran it — round trips
 * of write-with-immediate, a stream of writes with pauses (the peer's responder watched, then not),
 * sends that wait for their receives (RNR and the requester's retry), a read and an atomic.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ManyQueuePairsTest {
    private static final int IDLE = 300;
    private static final int ROUND_TRIPS = 2_000;
    private static final int RNR_SENDS = 5;
    private static final int STREAMED = 20_000;
    /**
     * Turns a sweep may find work in though every path marks: a request posted while another thread
     * runs a sweep can be found by the sweep's turn before its poster's mark lands (the mark follows
     * the request, so that the turn the mark causes sees it); such a turn counts only if the mark has
     * not come by the next collect either (a poster descheduled in between). A path that leaves its
     * mark out counts every time: 197 in this test with the requester's publish mark left out.
     */
    private static final long RACED_MARKS = 2;

    @Test
    void idleQueuePairsCostTheWorkingPairNoTurnsAndNoMarkIsMissed() throws Exception {
        QpConfig config = QpConfig.builder().sendQueueDepth(16).recvQueueDepth(16).maxSge(1)
                .ackTimeout(Duration.ofMillis(100)).rnrTimer(Duration.ofMillis(50)).rnrRetry(QpConfig.RNR_RETRY_INFINITE)
                .build();
        try (Arena arena = Arena.ofShared();
             ShmDevice a = ShmDevice.open(ShmConfig.builder().name("many-a").build());
             ShmDevice b = ShmDevice.open(ShmConfig.builder().name("many-b").build())) {
            ProtectionDomain pdA = a.allocateProtectionDomain();
            ProtectionDomain pdB = b.allocateProtectionDomain();
            MemoryRegion ma = pdA.register(arena.allocate(4096, 64), AccessFlags.ALL);
            MemoryRegion mb = pdB.register(arena.allocate(4096, 64), AccessFlags.ALL);
            CompletionQueue scqA = a.createCompletionQueue(64);
            CompletionQueue rcqA = a.createCompletionQueue(64);
            CompletionQueue scqB = b.createCompletionQueue(64);
            CompletionQueue rcqB = b.createCompletionQueue(64);
            for (int i = 0; i < IDLE; i++) { // created first: the working pair has the highest numbers
                QueuePair ia = a.createQueuePair(pdA, config, scqA, rcqA);
                QueuePair ib = b.createQueuePair(pdB, config, scqB, rcqB);
                ia.connect(ib.localInfo());
                ib.connect(ia.localInfo());
            }
            QueuePair qa = a.createQueuePair(pdA, config, scqA, rcqA);
            QueuePair qb = b.createQueuePair(pdB, config, scqB, rcqB);
            qa.connect(qb.localInfo());
            qb.connect(qa.localInfo());
            WorkRequest wr = new WorkRequest();
            WorkCompletion[] wcs = WorkCompletion.array(4);

            // the first exchange attaches every pair; the idle ones then drop out of the cycles
            roundTrip(qa, qb, rcqA, rcqB, scqA, scqB, ma, mb, wr, wcs, -1);
            Thread.sleep(50);
            long[] turnsA = a.turns();
            long[] turnsB = b.turns();
            long started = System.nanoTime();
            for (int i = 0; i < ROUND_TRIPS; i++) {
                roundTrip(qa, qb, rcqA, rcqB, scqA, scqB, ma, mb, wr, wcs, i);
            }
            long elapsed = System.nanoTime() - started;
            long perRoundTrip = (a.turns()[0] - turnsA[0] + b.turns()[0] - turnsB[0]) / ROUND_TRIPS;
            // sweeps run all 301 pairs of a device once every 10 ms; everything else is the working pair's
            long sweeps = 2 * (elapsed / ShmDevice.SWEEP_NANOS + 1) * (IDLE + 1);
            assertThat(a.turns()[0] - turnsA[0] + b.turns()[0] - turnsB[0] - sweeps)
                    .as("turns of both devices over %d round trips, sweeps aside (%d a round trip in all)",
                            ROUND_TRIPS, perRoundTrip)
                    .isLessThan(40L * ROUND_TRIPS);

            // a stream of writes, 16 outstanding: the responder runs every cycle while they come, and tells the
            // requester so (its publishes then need no mark); each pause ends that, and a publish racing the end
            // must still be seen (Responder.unwatchUnlessSent and Requester.publish, a Dekker pair)
            long unwatchedBefore = ((ShmQueuePair) qb).responder.unwatched();
            int pauses = 0;
            int outstanding = 0;
            for (int i = 0; i < STREAMED; i++) {
                if (outstanding == 16) {
                    outstanding -= completions(scqA, wcs);
                }
                ma.segment().set(ValueLayout.JAVA_INT, 512 + 4 * (i % 16), i);
                qa.postSend(wr.clear().wrId(20).opcode(Opcode.RDMA_WRITE).remote(RemoteRegion.of(mb), 512 + 4 * (i % 16))
                        .sge(ma, 512 + 4 * (i % 16), 4));
                outstanding++;
                if (i % 2000 == 1999) { // a pause: a cycle of B's after the hold drops the pair (the watch
                    // withdrawn), and A's next publish must mark it
                    while (outstanding > 0) {
                        outstanding -= completions(scqA, wcs);
                    }
                    // the word B's responder sets in A's file while it watches: withdrawn during the drain
                    // already, or by one of the cycles below
                    MemorySegment watchedWord = ((ShmQueuePair) qa).file.segment;
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (Layout.getAcquire(watchedWord, Layout.QP_WATCHED) != 0 && System.nanoTime() < until) {
                        Thread.sleep(1);
                        scqB.poll(wcs); // empty: runs one of B's duty cycles, unless B's agent runs one now
                    }
                    assertThat(Layout.getAcquire(watchedWord, Layout.QP_WATCHED))
                            .as("B's watch withdrawn within 10 s of pause %d", pauses).isZero();
                    pauses++;
                }
            }
            while (outstanding > 0) {
                outstanding -= completions(scqA, wcs);
            }
            assertThat(((ShmQueuePair) qb).responder.unwatched() - unwatchedBefore)
                    .as("pauses in which B's cycles withdrew the watch").isGreaterThanOrEqualTo(pauses);
            for (int k = 0; k < 16; k++) {
                int last = STREAMED - 16 + k;
                assertThat(mb.segment().get(ValueLayout.JAVA_INT, 512 + 4 * (last % 16))).isEqualTo(last);
            }

            // sends before their receives: an RNR NAK, the receive posted while the requester waits out rnrTimer
            // (the responder finds no retry asked for yet and drops out), then the requester asks again: its mark
            for (int k = 0; k < RNR_SENDS; k++) {
                mb.segment().fill((byte) 0);
                ma.segment().set(ValueLayout.JAVA_LONG, 0, 0x5E_4D_0000_0000L + k);
                long naks = b.counters().get(io.slime4j.verbs.Counter.RNR_NAKS_SENT);
                qa.postSend(wr.clear().wrId(10).opcode(Opcode.SEND).sge(ma, 0, 8));
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (b.counters().get(io.slime4j.verbs.Counter.RNR_NAKS_SENT) == naks && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                assertThat(b.counters().get(io.slime4j.verbs.Counter.RNR_NAKS_SENT)).as("an RNR NAK within 10 s")
                        .isGreaterThan(naks);
                qb.postRecv(wr.clear().wrId(11).sge(mb, 0, 8));
                awaitOne(rcqB, wcs, WcOpcode.RECV);
                assertThat(mb.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x5E_4D_0000_0000L + k);
                awaitOne(scqA, wcs, WcOpcode.SEND);
            }
            assertThat(a.counters().get(io.slime4j.verbs.Counter.RNR_NAKS_RECEIVED)).as("the sends waited for receives")
                    .isGreaterThanOrEqualTo(RNR_SENDS);

            // a read and an atomic through the peer's ring (the peer's memory is not exported: not copied directly)
            mb.segment().set(ValueLayout.JAVA_LONG, 64, 41);
            qa.postSend(wr.clear().wrId(12).opcode(Opcode.RDMA_READ).remote(RemoteRegion.of(mb), 64).sge(ma, 128, 8));
            qa.postSend(wr.clear().wrId(13).opcode(Opcode.ATOMIC_FETCH_ADD).remote(RemoteRegion.of(mb), 64)
                    .atomic(1, 0).sge(ma, 256, 8));
            int got = 0;
            while (got < 2) {
                int n = scqA.await(wcs, 10, TimeUnit.SECONDS);
                assertThat(n).isPositive();
                for (int i = 0; i < n; i++) {
                    assertThat(wcs[i].status()).isEqualTo(WcStatus.SUCCESS);
                }
                got += n;
            }
            assertThat(ma.segment().get(ValueLayout.JAVA_LONG, 128)).isEqualTo(41);
            assertThat(ma.segment().get(ValueLayout.JAVA_LONG, 256)).isEqualTo(41);
            assertThat(mb.segment().get(ValueLayout.JAVA_LONG, 64)).isEqualTo(42);

            assertThat(a.turns()[1]).as("turns of A that found work only in a sweep (missed marks)")
                    .isLessThanOrEqualTo(RACED_MARKS);
            assertThat(b.turns()[1]).as("turns of B that found work only in a sweep (missed marks)")
                    .isLessThanOrEqualTo(RACED_MARKS);
        }
    }

    /** A writes to B with an immediate, B answers likewise; each side waits for the other's. */
    private static void roundTrip(QueuePair qa, QueuePair qb, CompletionQueue rcqA, CompletionQueue rcqB,
                                  CompletionQueue scqA, CompletionQueue scqB, MemoryRegion ma, MemoryRegion mb,
                                  WorkRequest wr, WorkCompletion[] wcs, int i) throws InterruptedException {
        qb.postRecv(wr.clear().wrId(1));
        qa.postRecv(wr.clear().wrId(2));
        ma.segment().set(ValueLayout.JAVA_INT, 0, i);
        qa.postSend(wr.clear().wrId(3).opcode(Opcode.RDMA_WRITE_WITH_IMM).remote(RemoteRegion.of(mb), 0)
                .sge(ma, 0, 4).immediate(i));
        awaitOne(rcqB, wcs, WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(wcs[0].immediate()).isEqualTo(i);
        assertThat(mb.segment().get(ValueLayout.JAVA_INT, 0)).isEqualTo(i);
        qb.postSend(wr.clear().wrId(4).opcode(Opcode.RDMA_WRITE_WITH_IMM).remote(RemoteRegion.of(ma), 64)
                .sge(mb, 0, 4).immediate(i));
        awaitOne(rcqA, wcs, WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(ma.segment().get(ValueLayout.JAVA_INT, 64)).isEqualTo(i);
        awaitOne(scqA, wcs, WcOpcode.RDMA_WRITE);
        awaitOne(scqB, wcs, WcOpcode.RDMA_WRITE);
    }

    /** Completions of {@code cq}, at least one within 10 s. */
    private static int completions(CompletionQueue cq, WorkCompletion[] wcs) throws InterruptedException {
        int n = cq.await(wcs, 10, TimeUnit.SECONDS);
        assertThat(n).as("completions within 10 s").isPositive();
        return n;
    }

    private static void awaitOne(CompletionQueue cq, WorkCompletion[] wcs, WcOpcode opcode) throws InterruptedException {
        WorkCompletion[] one = java.util.Arrays.copyOf(wcs, 1);
        assertThat(cq.await(one, 10, TimeUnit.SECONDS)).as("a completion within 10 s").isEqualTo(1);
        wcs[0] = one[0];
        assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wcs[0].opcode()).isEqualTo(opcode);
    }
}
