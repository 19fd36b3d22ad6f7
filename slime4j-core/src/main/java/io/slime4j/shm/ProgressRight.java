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
    private final ReentrantLock lock = new ReentrantLock();
    private final Runnable pendingCycle;
    /** A poster left marked work ({@link #leave}); cleared before a cycle takes the marks. */
    private volatile boolean pending;

    /** {@code pendingCycle} is one duty cycle of the device, run by a holder for work left to it. */
    ProgressRight(Runnable pendingCycle) {
        this.pendingCycle = pendingCycle;
    }

    /** Takes the right unless another thread holds it. */
    boolean tryAcquire() {
        return lock.tryLock();
    }

    /** Takes the right, waiting for the holder (closing, tests). */
    void acquire() {
        lock.lock();
    }

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
    }

    /**
     * Lets the right go, then runs a cycle for work a poster left meanwhile, as long as there is
     * such work; a nested hold's release leaves that to the outermost.
     */
    void release() {
        lock.unlock();
        if (lock.isHeldByCurrentThread()) {
            return;
        }
        while (pending && lock.tryLock()) {
            try {
                pending = false;
                pendingCycle.run();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * A poster marked its work and could not run it (the right was held, or the work is not the
     * poster's to do): a cycle runs it, the holder's or one this thread runs now when the right is
     * free. Whether this thread ran that cycle.
     */
    boolean leave() {
        pending = true; // then try the right: a Dekker pair with release()
        if (lock.isHeldByCurrentThread() || !lock.tryLock()) { // a holder's own release runs it, never nested
            return false; // the holder reads the flag after it lets go
        }
        try {
            pending = false;
            pendingCycle.run();
        } finally {
            release();
        }
        return true;
    }
}
