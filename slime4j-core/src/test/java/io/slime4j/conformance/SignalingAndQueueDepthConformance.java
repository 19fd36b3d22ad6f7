package io.slime4j.conformance;

import static io.slime4j.conformance.Requests.recv;
import static io.slime4j.conformance.Requests.send;
import static io.slime4j.conformance.Requests.write;
import static io.slime4j.verbs.WcStatus.REM_ACCESS_ERR;
import static io.slime4j.verbs.WcStatus.SUCCESS;
import static io.slime4j.verbs.WcStatus.WR_FLUSH_ERR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.conformance.QpPair.Side;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.QueueFullException;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.VerbsException;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Selective signaling and queue depth: unsignaled requests produce no completion unless they
 * fail yet occupy the send queue until a later completion is polled, the work request and
 * completion counters are exact, and posting is refused (never blocks) before the queue pair is
 * ready or past either queue's depth.
 *
 * <p>Each device runs it through a subclass in its own package (see {@link DeviceFixture}).
 */
public abstract class SignalingAndQueueDepthConformance extends ConformanceSuite {
    protected SignalingAndQueueDepthConformance(DeviceFixture fixture) {
        super(fixture);
    }

    // --------------------------------------------------------------------- selective signaling

    @Test
    @Timeout(30)
    public void unsignaledRequestsProduceNoCompletionUnlessTheyFail() {
        QpPair p = pair(qpConfig().signalAll(false).build());
        long seed = 701;
        long slot = 4 * KIB;
        MemoryRegion src = p.a.region(8 * slot);
        MemoryRegion dst = p.b.region(8 * slot);
        MemoryRegion rcv = p.b.region(8 * slot);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(dst.segment(), seed);
        Patterns.fillComplement(rcv.segment(), seed);
        RemoteRegion remote = RemoteRegion.of(dst);
        p.b.postRecv(recv(77, rcv, 5 * slot, slot));

        for (int i = 0; i < 5; i++) {
            p.a.post(write(i, src, i * slot, slot, remote, i * slot).signaled(false));
        }
        p.a.post(send(5, src, 5 * slot, slot).signaled(false));
        p.a.post(write(6, src, 6 * slot, slot, remote, 6 * slot)); // signaled

        assertCompletion(Completions.take(p.a.sendCq, "the signaled write"), 6, SUCCESS, WcOpcode.RDMA_WRITE);
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(100), "completions of unsignaled requests");
        // Signaling concerns the requester only: the receiver's completion is never optional.
        assertReceive(p.b.recvCompletion(), 77, WcOpcode.RECV, slot, null, p.b);
        for (int i = 0; i < 7; i++) {
            Patterns.assertPattern(i == 5 ? rcv.segment() : dst.segment(), i * slot, slot, seed, "message " + i);
        }
    }

    @Test
    @Timeout(30)
    public void theSignaledFlagIsIgnoredWhenEveryRequestIsSignaled() {
        QpPair p = pair(qpConfig().signalAll(true).build());
        MemoryRegion src = p.a.region(4 * KIB);
        RemoteRegion remote = RemoteRegion.of(p.b.region(4 * KIB));

        for (int i = 0; i < 3; i++) {
            p.a.post(write(i, src, i * KIB, KIB, remote, i * KIB).signaled(false));
        }

        List<WorkCompletion> wcs = p.a.sendCompletions(3);
        for (int i = 0; i < 3; i++) {
            assertCompletion(wcs.get(i), i, SUCCESS, WcOpcode.RDMA_WRITE);
        }
    }

    @Test
    @Timeout(30)
    public void unsignaledRequestsOccupyTheSendQueueUntilALaterSignaledCompletionIsPolled() throws Exception {
        int depth = 8;
        QpPair p = pair(qpConfig().signalAll(false).sendQueueDepth(depth).build());
        long seed = 702;
        long slot = 4 * KIB;
        MemoryRegion src = p.a.region((depth + 1) * slot);
        MemoryRegion dst = p.b.region((depth + 1) * slot);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(dst.segment(), seed);
        RemoteRegion remote = RemoteRegion.of(dst);

        for (int i = 0; i < depth - 1; i++) {
            p.a.post(write(i, src, i * slot, slot, remote, i * slot).signaled(false));
        }
        p.a.post(write(depth - 1, src, (depth - 1) * slot, slot, remote, (depth - 1) * slot));
        Completions.awaitCondition(() -> Patterns.matches(dst.segment(), (depth - 1) * slot, slot, seed),
                Duration.ofSeconds(10), "the data of the last write arriving");
        Thread.sleep(20); // let its completion be generated; the queue stays full until it is polled

        WorkRequest ninth = write(depth, src, depth * slot, slot, remote, depth * slot);
        long start = System.nanoTime();
        assertThatThrownBy(() -> p.a.qp.postSend(ninth))
                .as("post %d on a send queue of depth %d whose signaled completion is not polled yet", depth + 1, depth)
                .isInstanceOf(QueueFullException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to refuse the post (never block)")
                .isLessThan(Duration.ofSeconds(1));

        assertCompletion(Completions.take(p.a.sendCq, "the signaled write"), depth - 1, SUCCESS, WcOpcode.RDMA_WRITE);
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(20), "completions of unsignaled writes");
        assertCompletion(p.a.run(ninth), depth, SUCCESS, WcOpcode.RDMA_WRITE);
        Patterns.assertPattern(dst.segment(), 0, (depth + 1) * slot, seed, "every write");
    }

    @Test
    @Timeout(30)
    public void aFailingUnsignaledRequestCompletesWithItsWrIdStatusAndQueuePairNumber() {
        QpPair p = pair(qpConfig().signalAll(false).build());
        long seed = 703;
        MemoryRegion src = p.a.region(8 * KIB);
        MemoryRegion dst = p.b.region(8 * KIB);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(dst.segment(), seed);
        RemoteRegion badKey = new RemoteRegion(dst.address(), dst.length(), ~dst.remoteKey());
        long wrId = 0xFEED_FACE_CAFE_BEEFL;

        p.a.post(write(wrId, src, 0, 4 * KIB, badKey, 0).signaled(false),
                write(wrId + 1, src, 4 * KIB, 4 * KIB, RemoteRegion.of(dst), 4 * KIB).signaled(false));

        List<WorkCompletion> wcs = p.a.sendCompletions(2);
        assertCompletion(wcs.get(0), wrId, REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        assertCompletion(wcs.get(1), wrId + 1, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE);
        for (WorkCompletion wc : wcs) {
            assertThat(wc.qpn()).as("qpn of %s", wc).isEqualTo(p.a.qp.qpn());
        }
        Patterns.assertComplement(dst.segment(), 0, 4 * KIB, seed, "target of the failed write");
    }

    @Test
    @Timeout(30)
    public void workRequestAndCompletionCountersAreExactAndPerQueuePair() {
        QpConfig config = qpConfig().signalAll(false).build();
        VerbsDevice da = device();
        VerbsDevice db = device();
        ProtectionDomain pa = domain(da);
        ProtectionDomain pb = domain(db);
        QpPair one = QpPair.connect(side(da, pa, config), side(db, pb, config));
        QpPair two = QpPair.connect(side(da, pa, config), side(db, pb, config));
        MemoryRegion src = one.a.region(32 * KIB);
        MemoryRegion aRcv = one.a.region(4 * KIB);
        RemoteRegion remote = RemoteRegion.of(one.b.region(32 * KIB));
        int writes = 20;
        int every = 5;
        for (int j = 0; j < 3; j++) {
            one.a.postRecv(recv(100 + j, aRcv, j * KIB, KIB));
        }
        for (int i = 0; i < writes; i++) {
            one.a.post(write(i, src, i * KIB, KIB, remote, i * KIB).signaled(i % every == every - 1));
        }
        for (int i = 0; i < 7; i++) {
            two.a.post(write(1000 + i, src, i * KIB, KIB, remote, i * KIB)); // signaled
        }
        List<WorkCompletion> first = one.a.sendCompletions(writes / every);
        for (int k = 0; k < first.size(); k++) {
            assertCompletion(first.get(k), (long) k * every + every - 1, SUCCESS, WcOpcode.RDMA_WRITE);
        }
        two.a.sendCompletions(7);
        Completions.assertNone(one.a.sendCq, Duration.ofMillis(50), "completions of unsignaled writes");

        assertThat(one.a.qpCounter(Counter.WR_POSTED)).as("send requests posted on QP one").isEqualTo(writes);
        assertThat(one.a.qpCounter(Counter.RECV_WR_POSTED)).as("receives posted on QP one").isEqualTo(3);
        assertThat(one.a.qpCounter(Counter.COMPLETIONS_GENERATED)).as("completions generated on QP one")
                .isEqualTo(writes / every);
        assertThat(one.a.qpCounter(Counter.COMPLETIONS_POLLED)).as("completions polled on QP one")
                .isEqualTo(writes / every);
        assertThat(two.a.qpCounter(Counter.WR_POSTED)).as("send requests posted on QP two").isEqualTo(7);
        assertThat(two.a.qpCounter(Counter.RECV_WR_POSTED)).as("receives posted on QP two").isZero();
        assertThat(two.a.qpCounter(Counter.COMPLETIONS_GENERATED)).as("completions generated on QP two").isEqualTo(7);
        assertThat(two.a.qpCounter(Counter.COMPLETIONS_POLLED)).as("completions polled on QP two").isEqualTo(7);
        assertThat(da.counters().get(Counter.WR_POSTED)).as("device total of send requests posted")
                .isEqualTo(writes + 7);
        assertThat(da.counters().get(Counter.COMPLETIONS_GENERATED)).as("device total of completions generated")
                .isEqualTo(writes / every + 7);
        assertThat(one.b.qpCounter(Counter.WR_POSTED)).as("send requests posted by the passive side").isZero();
        assertThat(one.b.qpCounter(Counter.COMPLETIONS_GENERATED)).as("completions at the passive side").isZero();
    }

    @Test
    @Timeout(30)
    public void failedAndFlushedUnsignaledRequestsCompleteExactlyOnceRetireTheQueueAndAreCounted() {
        int depth = 8;
        QpPair p = pair(qpConfig().signalAll(false).sendQueueDepth(depth).build());
        MemoryRegion src = p.a.region(16 * KIB);
        MemoryRegion aRcv = p.a.region(4 * KIB);
        MemoryRegion dst = p.b.region(16 * KIB);
        RemoteRegion remote = RemoteRegion.of(dst);
        RemoteRegion badKey = new RemoteRegion(dst.address(), dst.length(), ~dst.remoteKey());
        p.a.postRecv(recv(50, aRcv, 0, KIB), recv(51, aRcv, KIB, KIB));
        for (int i = 0; i < depth; i++) { // a full send queue, none signaled; the fourth fails
            p.a.post(write(i, src, i * KIB, KIB, i == 3 ? badKey : remote, i * KIB).signaled(false));
        }
        assertThatThrownBy(() -> p.a.qp.postSend(write(99, src, 0, KIB, remote, 0).signaled(false)))
                .as("a post beyond a send queue full of unretired requests").isInstanceOf(QueueFullException.class);

        List<WorkCompletion> sent = p.a.sendCompletions(depth - 3);
        assertCompletion(sent.getFirst(), 3, REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        for (int i = 4; i < depth; i++) {
            assertCompletion(sent.get(i - 3), i, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE);
        }
        List<WorkCompletion> received = p.a.recvCompletions(2);
        assertThat(received).extracting(WorkCompletion::status).containsOnly(WR_FLUSH_ERR);
        Completions.awaitState(p.a.qp, QpState.ERR);

        // Polling the failure and the flushes retired every entry, the three successful unsignaled
        // writes before them included: the queue takes depth requests again, each flushed once.
        for (int i = 0; i < depth; i++) {
            p.a.post(write(200 + i, src, i * KIB, KIB, remote, i * KIB).signaled(false));
        }
        List<WorkCompletion> flushed = p.a.sendCompletions(depth);
        for (int i = 0; i < depth; i++) {
            assertCompletion(flushed.get(i), 200 + i, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE);
        }
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(50), "completions after each request completed once");
        assertThat(p.a.qpCounter(Counter.WR_POSTED)).as("send requests posted (the refused one not)")
                .isEqualTo(2L * depth);
        long generated = (depth - 3) + 2 + depth;
        assertThat(p.a.qpCounter(Counter.COMPLETIONS_GENERATED)).as("completions generated").isEqualTo(generated);
        assertThat(p.a.qpCounter(Counter.COMPLETIONS_POLLED)).as("completions polled").isEqualTo(generated);
    }

    // ---------------------------------------------------------------------------- queue limits

    @Test
    @Timeout(30)
    public void postingIsRefusedUntilTheQueuePairIsReady() {
        QpConfig config = qpConfig().build();
        Side a = side(config);
        Side b = side(config);
        MemoryRegion buf = a.region(4 * KIB);
        MemoryRegion dst = b.region(4 * KIB);
        RemoteRegion remote = RemoteRegion.of(dst);

        assertThat(a.qp.state()).as("state of a new queue pair").isEqualTo(QpState.RESET);
        assertThatThrownBy(() -> a.qp.postSend(write(91, buf, 0, 64, remote, 0))).as("postSend in RESET")
                .isInstanceOf(VerbsException.class);
        assertThatThrownBy(() -> a.qp.postRecv(recv(92, buf, 0, 64))).as("postRecv in RESET")
                .isInstanceOf(VerbsException.class);
        a.qp.modifyToInit();
        assertThat(a.qp.state()).isEqualTo(QpState.INIT);
        assertThatThrownBy(() -> a.qp.postSend(write(93, buf, 0, 64, remote, 0))).as("postSend in INIT")
                .isInstanceOf(VerbsException.class);
        a.qp.postRecv(recv(3, buf, 1024, 64)); // receives may be posted from INIT on
        a.qp.modifyToRtr(b.qp.localInfo());
        assertThat(a.qp.state()).isEqualTo(QpState.RTR);
        assertThatThrownBy(() -> a.qp.postSend(write(94, buf, 0, 64, remote, 0))).as("postSend in RTR")
                .isInstanceOf(VerbsException.class);
        a.qp.modifyToRts();
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
        b.qp.connect(a.qp.localInfo());

        assertCompletion(a.run(write(1, buf, 0, 64, remote, 0)), 1, SUCCESS, WcOpcode.RDMA_WRITE);
        Completions.assertNone(a.sendCq, Duration.ofMillis(50), "completions of refused posts");
        b.runOk(send(4, dst, 0, 64));
        assertReceive(a.recvCompletion(), 3, WcOpcode.RECV, 64, null, a);
    }

    @Test
    @Timeout(30)
    public void postingPastTheReceiveQueueDepthThrowsQueueFull() {
        int depth = 4;
        QpPair p = pair(qpConfig().recvQueueDepth(depth).build());
        MemoryRegion src = p.a.region(4 * KIB);
        MemoryRegion rcv = p.b.region((depth + 1) * KIB);
        for (int j = 0; j < depth; j++) {
            p.b.postRecv(recv(j, rcv, j * KIB, KIB));
        }

        assertThatThrownBy(() -> p.b.qp.postRecv(recv(depth, rcv, depth * KIB, KIB)))
                .as("receive %d on a receive queue of depth %d", depth + 1, depth)
                .isInstanceOf(QueueFullException.class);

        // The refusal is not an error of the queue pair: a SEND still consumes the first receive,
        // after which there is room again.
        p.a.runOk(send(1, src, 0, 100));
        assertReceive(p.b.recvCompletion(), 0, WcOpcode.RECV, 100, null, p.b);
        p.b.postRecv(recv(depth, rcv, depth * KIB, KIB));
        assertThat(p.b.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    @Timeout(30)
    public void postingPastTheSendQueueDepthThrowsQueueFullInsteadOfBlocking() {
        int depth = 4;
        QpPair p = pair(qpConfig().sendQueueDepth(depth).rnrRetry(QpConfig.RNR_RETRY_INFINITE).build());
        MemoryRegion src = p.a.region(4 * KIB);
        MemoryRegion rcv = p.b.region(depth * KIB);
        // No receive at b yet: the SENDs stay outstanding (RNR, retried forever).
        for (int i = 0; i < depth; i++) {
            p.a.post(send(i, src, i * KIB, KIB));
        }

        long start = System.nanoTime();
        assertThatThrownBy(() -> p.a.qp.postSend(send(depth, src, 0, KIB)))
                .as("SEND %d on a send queue of depth %d", depth + 1, depth)
                .isInstanceOf(QueueFullException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to refuse the post (never block)")
                .isLessThan(Duration.ofSeconds(1));

        for (int j = 0; j < depth; j++) {
            p.b.postRecv(recv(j, rcv, j * KIB, KIB));
        }
        List<WorkCompletion> wcs = p.a.sendCompletions(depth);
        for (int i = 0; i < depth; i++) {
            assertCompletion(wcs.get(i), i, SUCCESS, WcOpcode.SEND);
        }
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(20), "a completion of the refused post");
    }
}
