package io.slime4j.endpoint;

/**
 * How deep the endpoint's receive windows and completion queues are: one place for the arithmetic
 * that keeps every queue pair RNR-free (invariant I5) and every completion queue from overflowing,
 * which {@link Transport} builds from and {@link EndpointConfig} bounds its settings by.
 */
final class WindowSizes {
    private WindowSizes() {}

    /**
     * Receives of the meta window (and entries of the meta send queue): per recv slot of the peer
     * (at most as many as here) up to three messages can wait unprocessed — a cancel notice of its
     * previous lease, its meta and its own cancel notice (a slot's next meta needs its previous one
     * processed, which comes after that lease's notice was sent) — plus
     * {@link EndpointConfig#CREDIT_RESERVE} credit messages each for write-with-imm and eager
     * credits, and the lane-recovery messages ({@link LaneRecovery#META_RESERVE_PER_LANE} per lane).
     */
    static int metaWindow(int messageSlots, int qps) {
        return 3 * messageSlots + 2 * EndpointConfig.CREDIT_RESERVE + LaneRecovery.META_RESERVE_PER_LANE * qps;
    }

    /**
     * Receives of the data window: one per recv slot (the peer's rendezvous writes: each answers a
     * meta of a leased recv slot, released only after that arrival was dispatched) plus, with eager
     * messages on, the eager credits this endpoint gives its peer ({@link EagerCredits}: each eager
     * message or notice holds one until its receive was re-posted and the message taken).
     */
    static int dataWindow(EndpointConfig c) {
        return c.messageSlots() + (c.eagerThreshold() > 0 ? EndpointConfig.eagerWindow(c.messageSlots()) : 0);
    }

    /**
     * Completions that can be outstanding at once on one rail's completion queue, for {@code qps}
     * lanes on it. Each lane counts two imm windows: while it is re-established ({@link LaneRecovery})
     * it has two queue pairs, and the fresh pair's window can complete (the peer's write-with-imm, or
     * its flush when the round is abandoned) while the old pair's flushes are still queued. Rail 0
     * adds the message queue pairs' own reserves on top ({@link #railZeroExtra}).
     */
    static long completionQueue(int qps, int sendQueueDepth, int immWindow, int messageSlots) {
        return (long) qps * (sendQueueDepth + 2L * (immWindow + Transport.RQ_SLACK))
                + 4L * (messageSlots + EndpointConfig.CREDIT_RESERVE + Transport.RQ_SLACK);
    }

    /**
     * What rail 0's completion queue holds beyond {@link #completionQueue}: cancel notices, the
     * keepalive probe, lane recovery, and with eager messages the larger data window, a notice per
     * send slot and the credit returns.
     */
    static long railZeroExtra(EndpointConfig c) {
        long eager = c.eagerThreshold() > 0
                ? 2L * EndpointConfig.eagerWindow(c.messageSlots()) + c.messageSlots() + 2L * EndpointConfig.CREDIT_RESERVE
                : 0;
        return 4L * c.messageSlots() + Transport.KEEPALIVE_RESERVE + 4L * c.qps() + eager;
    }
}
