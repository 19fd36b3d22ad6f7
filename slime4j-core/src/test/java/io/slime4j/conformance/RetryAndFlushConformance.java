package io.slime4j.conformance;

import io.slime4j.soft.SoftCounter;
import static io.slime4j.conformance.Requests.compareSwap;
import static io.slime4j.conformance.Requests.fetchAdd;
import static io.slime4j.conformance.Requests.read;
import static io.slime4j.conformance.Requests.recv;
import static io.slime4j.conformance.Requests.send;
import static io.slime4j.conformance.Requests.sendWithImm;
import static io.slime4j.conformance.Requests.write;
import static io.slime4j.conformance.Requests.writeWithImm;
import static io.slime4j.verbs.WcStatus.REM_ACCESS_ERR;
import static io.slime4j.verbs.WcStatus.RETRY_EXC_ERR;
import static io.slime4j.verbs.WcStatus.SUCCESS;
import static io.slime4j.verbs.WcStatus.WR_FLUSH_ERR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.slime4j.conformance.QpPair.Side;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Failure and its consequences: requests to a peer that does not answer fail with
 * RETRY_EXC_ERR after the retry budget ({@code retryCount} 7 is finite), a peer device that closes
 * mid-transfer fails what is outstanding, and an error flushes every request behind it exactly
 * once.
 *
 * <p>Each device runs it through a subclass in its own package (see {@link DeviceFixture}).
 */
public abstract class RetryAndFlushConformance extends ConformanceSuite {
    protected RetryAndFlushConformance(DeviceFixture fixture) {
        super(fixture);
    }

    // ------------------------------------------------------------------------ retry exhaustion

    @Test
    @Timeout(30)
    public void requestsToASilentPeerFailWithRetryExceededAfterTheRetryBudget() {
        int retryCount = 3;
        Side s = silentPeerSide(qpConfig().ackTimeout(Duration.ofMillis(5)).retryCount(retryCount).build());
        MemoryRegion buf = s.region(4 * KIB);
        RemoteRegion nowhere = new RemoteRegion(1L << 20, 1L << 20, 0x1234);

        long start = System.nanoTime();
        s.post(write(1, buf, 0, 64, nowhere, 0), send(2, buf, 64, 64), read(3, buf, 128, 64, nowhere, 128));
        List<WorkCompletion> wcs = s.sendCompletions(3);
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

        assertCompletion(wcs.get(0), 1, RETRY_EXC_ERR, WcOpcode.RDMA_WRITE);
        assertCompletion(wcs.get(1), 2, WR_FLUSH_ERR, WcOpcode.SEND);
        assertCompletion(wcs.get(2), 3, WR_FLUSH_ERR, WcOpcode.RDMA_READ);
        for (WorkCompletion wc : wcs) {
            assertThat(wc.qpn()).as("qpn of %s", wc).isEqualTo(s.qp.qpn());
        }
        // 5 + 10 + 20 + 40 ms of timeouts with backoff; seconds mean the budget is not applied.
        assertThat(elapsed).as("time until RETRY_EXC_ERR with ackTimeout 5 ms, retryCount 3")
                .isLessThan(Duration.ofSeconds(5));
        Completions.awaitState(s.qp, QpState.ERR);
        assertThat(s.qpCounter(Counter.RETRANSMITS)).as("retransmissions before giving up")
                .isGreaterThanOrEqualTo(retryCount);
        assertThat(s.qpCounter(Counter.TIMEOUTS)).as("retransmit timer expiries").isPositive();
        Completions.assertNone(s.sendCq, Duration.ofMillis(50), "completions after every request completed once");
    }

    @Test
    @Timeout(30)
    public void outstandingRequestsCompleteWhenThePeerDeviceClosesMidTransfer() {
        QpPair p = pair(qpConfig().retryCount(2).build());
        int first = 16;
        int later = 4;
        long size = 512 * KIB;
        MemoryRegion src = p.a.region(first * size);
        RemoteRegion remote = RemoteRegion.of(p.b.region(first * size));

        for (int i = 0; i < first; i++) {
            p.a.post(write(i, src, i * size, size, remote, i * size));
        }
        assertCompletion(Completions.take(p.a.sendCq, "the first write, before the peer closes"), 0, SUCCESS,
                WcOpcode.RDMA_WRITE);
        resources.closeDevice(p.b.device);
        for (int i = first; i < first + later; i++) {
            p.a.post(write(i, src, 0, 4 * KIB, remote, 0)); // certainly after the close
        }

        List<WorkCompletion> rest = p.a.sendCompletions(first + later - 1);
        int failed = -1;
        for (int k = 0; k < rest.size(); k++) {
            WorkCompletion wc = rest.get(k);
            assertThat(wc.wrId()).as("completion order: %s", rest).isEqualTo(k + 1);
            if (failed < 0 && wc.status() != SUCCESS) {
                failed = k;
                assertThat(wc.status()).as("the first request that failed: %s", wc).isEqualTo(RETRY_EXC_ERR);
            } else if (failed >= 0) {
                assertThat(wc.status()).as("a request after the failed one: %s", wc).isEqualTo(WR_FLUSH_ERR);
            }
        }
        assertThat(failed).as("some request must fail once the peer is gone: %s", rest).isNotNegative();
        Completions.awaitState(p.a.qp, QpState.ERR);
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(50), "completions after every request completed once");
    }

    // ------------------------------------------------------------------------- retry semantics

    /**
     * slime4j follows the InfiniBand specification: {@code retryCount} 7 means seven
     * retransmissions and then RETRY_EXC_ERR (only {@code rnrRetry} 7 means "forever"). A transport
     * that read 7 as infinite here would never fail the request, and this test would time out.
     */
    @Test
    @Timeout(30)
    public void retryCountSevenIsFiniteAgainstASilentPeer() {
        Side s = silentPeerSide(qpConfig().ackTimeout(Duration.ofMillis(2)).retryCount(7).build());
        MemoryRegion buf = s.region(4 * KIB);

        long start = System.nanoTime();
        WorkCompletion wc = s.run(write(1, buf, 0, 64, new RemoteRegion(1L << 20, 4096, 0x77), 0));
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

        assertCompletion(wc, 1, RETRY_EXC_ERR, WcOpcode.RDMA_WRITE);
        // 2 ms doubling, capped at 32 times: about 254 ms in all.
        assertThat(elapsed).as("time until RETRY_EXC_ERR with ackTimeout 2 ms, retryCount 7")
                .isLessThan(Duration.ofSeconds(5));
        assertThat(s.qpCounter(Counter.RETRANSMITS))
                .as("retransmissions of the single packet: retryCount 7 = 7 retries")
                .isEqualTo(7);
        Completions.awaitState(s.qp, QpState.ERR);
    }

    // -------------------------------------------------------------------------------- flushing

    @Test
    @Timeout(30)
    public void anErrorFlushesEveryOutstandingSendAndReceiveExactlyOnce() {
        QpPair p = pair();
        MemoryRegion src = p.a.region(64 * KIB);
        MemoryRegion aRcv = p.a.region(16 * KIB);
        MemoryRegion dst = p.b.region(64 * KIB);
        MemoryRegion bRcv = p.b.region(64 * KIB);
        RemoteRegion remote = RemoteRegion.of(dst);
        RemoteRegion badKey = new RemoteRegion(dst.address(), dst.length(), ~dst.remoteKey());
        for (int j = 0; j < 3; j++) {
            p.a.postRecv(recv(500 + j, aRcv, j * 4 * KIB, 4 * KIB));
        }
        for (int j = 0; j < 8; j++) {
            p.b.postRecv(recv(600 + j, bRcv, j * 8 * KIB, 8 * KIB));
        }

        List<WorkRequest> requests = List.of(
                write(0, src, 0, 4 * KIB, badKey, 0),
                send(1, src, 0, 4 * KIB),
                write(2, src, 4 * KIB, 4 * KIB, remote, 4 * KIB),
                read(3, src, 8 * KIB, 4 * KIB, remote, 8 * KIB),
                sendWithImm(4, src, 12 * KIB, 100, 44),
                writeWithImm(5, src, 16 * KIB, 100, remote, 16 * KIB, 55),
                fetchAdd(6, src, 20 * KIB, remote, 20 * KIB, 1),
                compareSwap(7, src, 20 * KIB + 8, remote, 20 * KIB + 8, 0, 1),
                write(8, src, 24 * KIB, 20 * KIB, remote, 24 * KIB),
                send(9, src, 0, 8));
        p.a.post(requests.toArray(WorkRequest[]::new));

        List<WorkCompletion> sent = p.a.sendCompletions(requests.size());
        assertCompletion(sent.getFirst(), 0, REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        for (int i = 1; i < requests.size(); i++) {
            assertCompletion(sent.get(i), i, WR_FLUSH_ERR, requests.get(i).opcode().completionOpcode());
        }
        List<WorkCompletion> received = p.a.recvCompletions(3);
        for (int j = 0; j < 3; j++) {
            assertThat(received.get(j).wrId()).as("flushed receive %d: %s", j, received).isEqualTo(500 + j);
            assertThat(received.get(j).status()).as("status of %s", received.get(j)).isEqualTo(WR_FLUSH_ERR);
        }
        Completions.awaitState(p.a.qp, QpState.ERR);
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(100),
                "send completions after each request completed once");
        Completions.assertNone(p.a.recvCq, Duration.ofMillis(10),
                "receive completions after each receive completed once");
    }

    @Test
    @Timeout(30)
    public void requestsPostedToAQueuePairInErrorAreFlushed() {
        QpPair p = pair(qpConfig().signalAll(false).build());
        long seed = 601;
        MemoryRegion src = p.a.region(4 * KIB);
        MemoryRegion aRcv = p.a.region(4 * KIB);
        MemoryRegion dst = p.b.region(4 * KIB);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(dst.segment(), seed);

        p.a.qp.modifyToError();
        assertThat(p.a.qp.state()).as("state after modifyToError()").isEqualTo(QpState.ERR);
        p.a.post(write(1, src, 0, 64, RemoteRegion.of(dst), 0),
                write(2, src, 64, 64, RemoteRegion.of(dst), 64).signaled(false));
        p.a.postRecv(recv(3, aRcv, 0, 64));

        List<WorkCompletion> sent = p.a.sendCompletions(2);
        assertCompletion(sent.get(0), 1, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE);
        assertCompletion(sent.get(1), 2, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE); // unsignaled, but failed
        WorkCompletion r = p.a.recvCompletion();
        assertThat(r.wrId()).as("wrId of %s", r).isEqualTo(3);
        assertThat(r.status()).as("status of %s", r).isEqualTo(WR_FLUSH_ERR);
        Patterns.assertComplement(dst.segment(), 0, dst.length(), seed, "target of writes posted in ERR");
    }

    @Test
    @Timeout(30)
    public void modifyToErrorFlushesOutstandingSendsAndReceives() {
        QpPair p = pair(qpConfig().rnrRetry(QpConfig.RNR_RETRY_INFINITE).build());
        MemoryRegion src = p.a.region(8 * KIB);
        MemoryRegion aRcv = p.a.region(16 * KIB);
        RemoteRegion remote = RemoteRegion.of(p.b.region(8 * KIB));
        for (int j = 0; j < 4; j++) {
            p.a.postRecv(recv(40 + j, aRcv, j * 4 * KIB, 4 * KIB));
        }
        // b posts no receive: the SEND stays outstanding (RNR, retried forever), the WRITE behind it too.
        p.a.post(send(1, src, 0, KIB), write(2, src, KIB, KIB, remote, 0));
        Completions.awaitCondition(() -> Math.max(p.a.qpCounter(Counter.RNR_NAKS_RECEIVED),
                        p.a.deviceCounter(Counter.RNR_NAKS_RECEIVED)) > 0,
                Duration.ofSeconds(10), "an RNR NAK reaching the requester");

        p.a.qp.modifyToError();

        List<WorkCompletion> sent = p.a.sendCompletions(2);
        assertCompletion(sent.get(0), 1, WR_FLUSH_ERR, WcOpcode.SEND);
        assertCompletion(sent.get(1), 2, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE);
        List<WorkCompletion> received = p.a.recvCompletions(4);
        for (int j = 0; j < 4; j++) {
            assertThat(received.get(j).wrId()).as("flushed receive %d: %s", j, received).isEqualTo(40 + j);
            assertThat(received.get(j).status()).as("status of %s", received.get(j)).isEqualTo(WR_FLUSH_ERR);
        }
        assertThat(p.a.qp.state()).isEqualTo(QpState.ERR);
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(50), "send completions after each request completed once");
    }
}
