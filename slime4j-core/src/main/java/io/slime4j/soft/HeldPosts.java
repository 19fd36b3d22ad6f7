package io.slime4j.soft;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongSupplier;

/**
 * Doorbell batching ({@link PostRoute#HOLD}): how many posted requests wait for the device's next
 * duty cycle instead of each running one, and when a poster must run it after all. A post held here
 * leaves with the next cycle anyone runs (the poster's own wait, a waiting thread's, the agent's);
 * a poster that keeps posting without waiting runs the cycle itself once {@link #MAX_POSTS} are held
 * or the first of them was held {@link #MAX_NANOS} ago. So requests posted between two waits leave
 * together, in one burst of coalesced datagrams, rather than one system call each (libfabric's
 * {@code FI_MORE}, ibverbs' one doorbell for a list of work requests).
 *
 * <p>Posters on any thread count in; the device's cycle holder empties it ({@link #cycleBegan}).
 * The counts are a heuristic: a race between the two may make a poster run a cycle early, never
 * leave a request unsent (that is the cycle's pending flag's job, {@link DutyCycle}).
 */
final class HeldPosts {
    /**
     * Held requests at which the next poster runs the cycle: enough for a full GSO run of small
     * writes or a coalesced datagram of small messages, few enough that no request waits behind many.
     */
    static final int MAX_POSTS = 32;
    /** Age of the oldest held request at which the next poster runs the cycle. */
    static final long MAX_NANOS = 20_000;

    private static final VarHandle HELD;

    static {
        try {
            HELD = MethodHandles.lookup().findVarHandle(HeldPosts.class, "held", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final LongSupplier clock;
    @SuppressWarnings("unused") private volatile int held;
    private volatile long firstHeldAt;

    HeldPosts(LongSupplier clock) {
        this.clock = clock;
    }

    /**
     * A request was posted and may wait for the next cycle: false if it may, true if the poster
     * must run the cycle now (this one makes {@link #MAX_POSTS}, or the first held one is
     * {@link #MAX_NANOS} old; it then leaves in that cycle and is not counted as held).
     */
    boolean holdOrRing() {
        int before = (int) HELD.getAndAdd(this, 1);
        long now = clock.getAsLong();
        if (before == 0) {
            firstHeldAt = now;
            return false;
        }
        boolean ring = before + 1 >= MAX_POSTS || now - firstHeldAt >= MAX_NANOS;
        if (ring) {
            HELD.getAndAdd(this, -1); // only when the limit is reached: a held post costs one atomic update
        }
        return ring;
    }

    /**
     * A cycle began: it sends everything held so far. Returns how many that was, for the device's
     * count of held posts, added once a cycle rather than once a post.
     */
    int cycleBegan() {
        return (int) HELD.getAndSet(this, 0);
    }

    /** Requests held since the last cycle began (approximate under concurrent posts). */
    int held() {
        return held;
    }
}
