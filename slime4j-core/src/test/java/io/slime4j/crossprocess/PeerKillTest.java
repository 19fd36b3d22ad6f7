package io.slime4j.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Killing the peer process (SIGKILL) in the middle of a transfer: every request still outstanding
 * fails, the oldest with RETRY_EXC_ERR and the rest with WR_FLUSH_ERR, within the retry budget of
 * a short ACK timeout; the device then closes cleanly and leaves no thread of ours behind.
 */
@Timeout(60)
class PeerKillTest {
    private static final Logger LOG = LoggerFactory.getLogger(PeerKillTest.class);
    private static final long MIB = 1 << 20;
    private static final Duration ACK_TIMEOUT = Duration.ofMillis(20);
    private static final int RETRY_COUNT = 3;

    private PeerProcess peer;
    private LocalSide local;

    @AfterEach
    void cleanUp() {
        try {
            if (peer != null) {
                peer.close();
            }
        } finally {
            if (local != null) {
                local.close();
            }
        }
    }

    @Test
    void killingThePeerMidTransferFailsEveryOutstandingRequestWithinTheRetryBudgetAndLeavesNoThreads()
            throws Exception {
        Set<Thread> before = slime4jThreads();
        QpConfig qp = QpConfig.builder().ackTimeout(ackTimeout()).retryCount(RETRY_COUNT).build();
        peer = new PeerProcess(peerOptions("--ack-timeout-ms", "20", "--retry-count", "3", "--max-seconds", "60"));
        local = newLocalSide("kill-a", qp);
        local.qp.connect(peer.info);
        var info = local.qp.localInfo();
        peer.call("CONNECT " + info.address() + " " + info.qpn() + " " + info.psn() + " " + info.token(), "OK");
        RemoteRegion dst = peer.region("dst", 64 * MIB);
        MemoryRegion src = local.region(64 * MIB);

        int writes = 256; // 256 MiB: far more than can finish before the kill
        WorkRequest wr = new WorkRequest();
        for (int i = 0; i < writes; i++) {
            long offset = (i % 64) * MIB;
            local.qp.postSend(wr.clear().wrId(i).opcode(Opcode.RDMA_WRITE).sge(src, offset, MIB).remote(dst, offset));
        }
        List<WorkCompletion> first = local.take(1, 20);
        assertThat(first).as("the first write, before the kill").hasSize(1);
        assertThat(first.getFirst().status()).isEqualTo(WcStatus.SUCCESS);
        peer.kill();
        long killed = System.nanoTime();

        List<WorkCompletion> rest = local.take(writes - 1, 30);
        Duration failedAfter = Duration.ofNanos(System.nanoTime() - killed);

        assertThat(rest).as("every request completes once").hasSize(writes - 1);
        int failed = -1;
        for (int k = 0; k < rest.size(); k++) {
            WorkCompletion wc = rest.get(k);
            assertThat(wc.wrId()).as("completion order").isEqualTo(k + 1);
            if (failed < 0 && wc.status() != WcStatus.SUCCESS) {
                failed = k + 1;
                assertThat(wc.status()).as("the first request to fail: %s", wc).isEqualTo(WcStatus.RETRY_EXC_ERR);
            } else if (failed >= 0) {
                assertThat(wc.status()).as("a request after the failed one: %s", wc).isEqualTo(WcStatus.WR_FLUSH_ERR);
            }
        }
        assertThat(failed).as("a request failed once the peer was gone").isPositive();
        // ACK timeout doubled on each of the retries: 20 + 40 + 80 + 160 ms. On a busy machine the RTT
        // estimate raises the RTO above the ACK timeout (and backoff doubles it), so this is a "never
        // hangs" bound, not a timing claim; the log line below reports the time it took.
        Duration budget = ackTimeout().multipliedBy((1L << (RETRY_COUNT + 1)) - 1);
        assertThat(failedAfter).as("time from the kill until every request failed (retry budget %s)", budget)
                .isLessThan(failureBound(budget));
        assertThat(local.qp.state()).isEqualTo(QpState.ERR);
        LOG.info("peer killed after write 0 completed: {} writes succeeded after the kill, write {} failed with "
                        + "RETRY_EXC_ERR {} ms after the kill (retry budget {} ms), {} flushed; counters {}",
                failed - 1, failed, failedAfter.toMillis(), budget.toMillis(), writes - 1 - failed,
                local.qp.counters());

        long closing = System.nanoTime();
        local.close();
        Duration closeTook = Duration.ofNanos(System.nanoTime() - closing);
        assertThat(closeTook).as("closing the device").isLessThan(Duration.ofSeconds(5));
        assertThat(local.device.counters().get(Counter.AGENT_ERRORS)).isZero();
        assertThat(slime4jThreads()).as("slime4j threads after the device closed").isSubsetOf(before);
        assertThat(peer.process().isAlive()).isFalse();
    }

    /** This side's ACK timeout (the retry budget that detects the dead peer on soft). */
    protected Duration ackTimeout() {
        return ACK_TIMEOUT;
    }

    /** The child's options: {@code base} plus what a subclass adds (another device). */
    protected String[] peerOptions(String... base) {
        return base;
    }

    /** This process's side. */
    protected LocalSide newLocalSide(String name, QpConfig qp) {
        return new LocalSide(name, qp);
    }

    /** How long after the kill every request must have failed: a "never hangs" bound over the retry budget. */
    protected Duration failureBound(Duration retryBudget) {
        return retryBudget.plusSeconds(15);
    }

    private static Set<Thread> slime4jThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("slime4j-"))
                .collect(Collectors.toSet());
    }
}
