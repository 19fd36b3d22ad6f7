package io.slime4j.soft;

/**
 * How long RACK loss detection lets a segment be overtaken before it counts as lost (RFC 8985's
 * reordering window). Until the path has been seen to reorder, none at all once the sender is in
 * loss recovery or at least {@link #DUP_THRESH} segments beyond a hole were SACKed (TCP's duplicate
 * threshold): then a hole followed by later deliveries is a loss, resent after one round trip
 * instead of one and a quarter. Otherwise a quarter of the smallest round trip seen (reordering is a
 * property of the path, not of its queues), at least {@link #MIN_NANOS} and at most the smoothed
 * round trip. Fed by {@link LossRecovery}; progress agent thread only.
 */
final class ReorderWindow {
    /** SACKed segments beyond a hole that make it a loss on a path not seen to reorder. */
    static final int DUP_THRESH = 3;
    /** The smallest window once one applies: an agent's scheduling can delay a delivery this much. */
    static final long MIN_NANOS = 50_000;

    private long minRttNanos = Long.MAX_VALUE;
    private boolean reorderingSeen;

    /** A round trip measured on a segment sent once. */
    void onRttSample(long nanos) {
        if (nanos > 0 && nanos < minRttNanos) {
            minRttNanos = nanos;
        }
    }

    /** A segment sent once was delivered after one sent later than it: the path reorders. */
    void onReordering() {
        reorderingSeen = true;
    }

    boolean reorderingSeen() {
        return reorderingSeen;
    }

    /** The smallest round trip measured, or {@link Long#MAX_VALUE} before the first. */
    long minRtt() {
        return minRttNanos;
    }

    /** The window now, given whether the sender is in recovery, the SACKed count and the smoothed round trip. */
    long nanos(boolean inRecovery, int sacked, double srttNanos) {
        if (!reorderingSeen && (inRecovery || sacked >= DUP_THRESH)) {
            return 0;
        }
        long quarter = minRttNanos == Long.MAX_VALUE ? (long) (srttNanos / 4) : minRttNanos / 4;
        return Math.max(MIN_NANOS, Math.min(quarter, (long) srttNanos));
    }
}
