package io.slime4j.endpoint;

import java.util.function.IntConsumer;
import java.util.function.IntSupplier;

/**
 * Write-with-imm credits across a lane's re-establishment ({@link LaneRecovery}), the receiving
 * side. The peer spends one of this endpoint's credits per write-with-imm; normally the receive it
 * consumes is re-posted and the credit returned ({@link ImmRecvPath}). An immediate the peer posted
 * on the lane's old queue pair that never consumed a receive here (flushed at the peer, or dropped
 * by the old pair in ERR) would never come back: each round would shrink the peer's window.
 *
 * <p>So each side tells the other, in its lane message, how many write-with-imm requests it posted
 * on the old pair, counted once that pair is in ERR (nothing posted later reaches the peer: the
 * sender refunds those itself, {@link IoSendQueue#unstatedImmOfOld}). This side counts the receives
 * its old pair consumed — by queue pair number, so a completion is never counted for the wrong
 * pair — and once every receive of the old pair's window has completed (the pair is in ERR: they
 * flush), the count is final and the difference is returned like any credit. Both orders (the
 * statement first, or the window drained first) end the same way.
 *
 * <p>Thread-safe: completions come on the lane's rail's dispatch thread, the statement and the
 * window change on rail 0's.
 */
final class ImmRefunds {
    private final IntConsumer refund;
    private final int[] qpn;
    private final int[] consumed;
    private final int[] oldQpn;
    /** Receives of the old window not completed yet ({@link RecvWindow#posted}); null: no old window pending. */
    private final IntSupplier[] old;
    private final int[] oldConsumed;
    private final int[] stated;

    /** Refunds that could not be made (a lane re-established again before its old window drained). */
    long skipped;

    /**
     * @param qpns   the queue pair numbers of the lanes' imm windows at connect
     * @param refund returns credits to the peer (its immediates that never consumed a receive)
     */
    ImmRefunds(int[] qpns, IntConsumer refund) {
        int n = qpns.length;
        this.refund = refund;
        this.qpn = new int[n];
        this.consumed = new int[n];
        this.oldQpn = new int[n];
        this.old = new IntSupplier[n];
        this.oldConsumed = new int[n];
        this.stated = new int[n];
        for (int q = 0; q < n; q++) {
            qpn[q] = qpns[q];
            stated[q] = -1;
        }
    }

    /**
     * Rail 0: lane {@code lane}'s imm window moved from queue pair {@code retiredQpn} (its receives
     * not yet completed: {@code outstanding}) to a fresh queue pair's, {@code freshQpn}.
     */
    synchronized void retire(int lane, int retiredQpn, IntSupplier outstanding, int freshQpn) {
        if (old[lane] != null) {
            skipped++; // the previous round's old window has not drained: its refund is given up
        }
        old[lane] = outstanding;
        oldQpn[lane] = retiredQpn;
        oldConsumed[lane] = consumed[lane];
        stated[lane] = -1;
        qpn[lane] = freshQpn;
        consumed[lane] = 0;
    }

    /**
     * Dispatch thread: a receive of lane {@code lane}'s window on queue pair {@code wcQpn} completed,
     * after its window was told ({@link RecvWindow#consumed}); {@code success}: the peer's immediate
     * consumed it (a flush did not).
     */
    void completed(int lane, int wcQpn, boolean success) {
        int n;
        synchronized (this) {
            if (wcQpn == qpn[lane]) {
                if (success) {
                    consumed[lane]++;
                }
                return;
            }
            if (old[lane] == null || oldQpn[lane] != wcQpn) {
                return;
            }
            if (success) {
                oldConsumed[lane]++;
            }
            n = settle(lane);
        }
        if (n > 0) {
            refund.accept(n);
        }
    }

    /** Rail 0: the peer posted {@code immPosted} write-with-imm requests on the lane's old queue pair. */
    void peerPosted(int lane, int immPosted) {
        int n;
        synchronized (this) {
            if (old[lane] == null) {
                return;
            }
            stated[lane] = immPosted;
            n = settle(lane);
        }
        if (n > 0) {
            refund.accept(n);
        }
    }

    /** With the statement known and the old window drained: what to refund (the round's accounting ends). */
    private int settle(int lane) {
        if (stated[lane] < 0 || old[lane].getAsInt() > 0) {
            return 0;
        }
        int n = stated[lane] - oldConsumed[lane];
        old[lane] = null;
        stated[lane] = -1;
        return Math.max(0, n);
    }
}
