package io.slime4j.endpoint;

/**
 * Cancels every live op ({@link RdmaEndpoint#cancelAll()}, and twice while closing): drains the
 * imm-recv queues first (so no waiting immRecv takes an arrival meanwhile), walks the in-flight
 * registry, then tells the peer about recvs cancelled before their data arrived.
 */
final class Cancellation implements Shutdown.Canceller {
    private final ImmRecvPath imm;
    private final OpTracker tracker;
    private final CancelNotices notices;

    Cancellation(ImmRecvPath imm, OpTracker tracker, CancelNotices notices) {
        this.imm = imm;
        this.tracker = tracker;
        this.notices = notices;
    }

    /** Cancels every live op with {@code why}; how many this call completed. */
    @Override
    public int cancel(String why) {
        int n = imm.cancelAll(why);
        n += tracker.cancelAll(why);
        notices.notifyCancelled();
        return n;
    }
}
