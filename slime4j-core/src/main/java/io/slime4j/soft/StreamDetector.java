package io.slime4j.soft;

import java.util.function.LongSupplier;

/**
 * Tells a stream of arrivals from a round trip by how a default device's blocking waiters fared
 * ({@link WaiterBlock}): a waiter of a round trip arrives before its datagram and blocks for it,
 * while in a stream (a receiver taking messages in as fast as they come) what it waits for is
 * already there, and its drives end without ever blocking. After {@link #RUN} such drives in a row
 * the device counts as streaming for {@link #HOLD_NANOS}: its waiters then park and leave the
 * cycles to the agent, which takes the stream in while the application's thread handles what it
 * took in before, on two cores instead of one (1 KiB message rate: about 40% lower with the
 * receiver's waiter doing both; still about 20% lower with a 1 ms hold, whose renewals left the
 * waiter a tenth of the stream). The next waiter after the hold drives again, and renews it if its
 * drives still do not block. A heuristic: a race between a renewal and an expiry may lose the
 * renewal, which costs one more drive.
 *
 * <p>{@link #driveEnded} is called by the holder of the waiter place only; {@link #streaming}
 * from any thread.
 */
final class StreamDetector {
    /**
     * Drives in a row that ended without blocking that make a stream. A round trip's waiter finds
     * its datagram there already now and then too: when its thread was preempted on a busy machine
     * while the reply came (about one drive in five on 2 cores with both processes' agents and
     * callers). With a run of 4 that made a stream hundreds of times a run, and each kept the
     * waiters parked behind the agent for the hold (a hop per trip), which the agent's busy cycles
     * then prolonged: 20-45% of a round trip's waits. A stream's drives never block, so 16 costs it
     * 12 more messages taken in by the waiter per hold; a round trip meets such a run next to never.
     */
    static final int RUN = 16;
    /** How long a detected stream keeps waiters from driving. */
    static final long HOLD_NANOS = 10_000_000;

    private final LongSupplier clock;
    /** Drives in a row that ended without blocking (the place's holder only). */
    private int unblocked;
    private volatile boolean streaming;
    private volatile long until;

    StreamDetector(LongSupplier clock) {
        this.clock = clock;
    }

    /** A drive ended: whether its waiter blocked on the sockets at least once. */
    void driveEnded(boolean blocked) {
        if (blocked) {
            unblocked = 0;
            return;
        }
        if (++unblocked >= RUN) {
            unblocked = 0;
            until = clock.getAsLong() + HOLD_NANOS;
            streaming = true; // after until: a reader that sees it sees the deadline
        }
    }

    /** Whether a stream was seen less than {@link #HOLD_NANOS} ago (a clock read only then). */
    boolean streaming() {
        if (!streaming) {
            return false;
        }
        if (clock.getAsLong() - until >= 0) {
            streaming = false;
            return false;
        }
        return true;
    }
}
