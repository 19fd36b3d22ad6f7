package io.slime4j.shm;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The right to run an shm device's requesters and responders (its duty cycles), held by one
 * thread at a time: the agent, a waiter that drives the device, or a poster that publishes its own
 * requests. A poster that finds the right held marks its queue pair and {@linkplain #leave leaves}
 * the work to the holder: the holder's cycle takes the mark, or, when the mark came after that
 * cycle took the marks, the holder runs one more cycle as it lets the right go ({@link #release}).
 * So a post never waits for an agent that rests while waiters drive ({@link LookInBackoff}).
 *
 * <p>The pending flag and the right form a Dekker pair: the poster sets the flag, then tries the
 * right; the holder lets the right go, then reads the flag. One of the two sees the other.
 */
final class ProgressRight {
    /**
     * Cycles a releasing thread runs at most for work left to it: posters that keep leaving work
     * would otherwise keep it from its own (a waiter's deadline, a poster's return).
     */
    static final int MAX_PENDING_CYCLES = 2;

    private final ReentrantLock lock = new ReentrantLock();
    private final Runnable pendingCycle;
    private final Runnable handOff;
    /** A poster left marked work ({@link #leave}); cleared before a cycle takes the marks. */
    private volatile boolean pending;
    /** Work left was handed to the agent ({@link #handOff}); cleared before a cycle takes the marks. */
    private volatile boolean handedOff;

    /**
     * {@code pendingCycle} is one duty cycle of the device, run by a holder for work left to it;
     * {@code handOff} passes work still left after {@link #MAX_PENDING_CYCLES} such cycles to the
     * device's agent (it unparks it: an agent resting while waiters drive does not hear the doorbell).
     */
    ProgressRight(Runnable pendingCycle, Runnable handOff) {
        this.pendingCycle = pendingCycle;
        this.handOff = handOff;
    }

    /** Takes the right unless another thread holds it. */
    boolean tryAcquire() {
        return lock.tryLock();
    }

    /** Takes the right, waiting for the holder (the agent's cycles, retiring queue pairs, tests). */
    void acquire() {
        lock.lock();
    }

    /** Whether work left over was handed to the agent ({@link #handOff}) and no cycle has taken it yet. */
    boolean handedOff() {
        return handedOff;
    }

    /** Whether the calling thread holds the right. */
    boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    /**
     * A cycle is about to take the marks (holder only): work left before now is seen by it, so the
     * holder needs no cycle more for it.
     */
    void takingMarks() {
        if (pending) {
            pending = false; // written only when set: a volatile store per post left, not per cycle
        }
        if (handedOff) {
            handedOff = false;
        }
    }

    /**
     * Lets the right go, then runs a cycle for work a poster left meanwhile, up to
     * {@link #MAX_PENDING_CYCLES}, and hands what is still left to the agent; a nested hold's
     * release leaves that to the outermost. How many cycles it ran (the caller's clock reading is
     * older by them).
     */
    int release() {
        lock.unlock();
        return lock.isHeldByCurrentThread() ? 0 : runPending();
    }

    /**
     * A poster marked its work and could not run it (the right was held, or the work is not the
     * poster's to do): a cycle runs it, the holder's or one this thread runs now when the right is
     * free. Whether this thread ran that cycle.
     */
    boolean leave() {
        pending = true; // then try the right: a Dekker pair with release()
        return !lock.isHeldByCurrentThread() && runPending() > 0; // a holder's own release runs it, never nested
    }

    /** Runs cycles for work left while the right is free and work is pending, up to the bound; how many. */
    private int runPending() {
        int ran = 0;
        while (pending && lock.tryLock()) {
            if (ran == MAX_PENDING_CYCLES) {
                lock.unlock();
                handedOff = true; // before the unpark: the agent then waits for the right, it does not skip
                handOff.run(); // the flag stays set: the agent's cycle takes the marks
                break;
            }
            try {
                pending = false;
                pendingCycle.run();
                ran++;
            } finally {
                lock.unlock();
            }
        }
        return ran;
    }
}
