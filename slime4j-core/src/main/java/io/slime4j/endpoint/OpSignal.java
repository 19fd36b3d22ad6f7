package io.slime4j.endpoint;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The completion signal of one operation (invariant I1): created with its {@link OpState}, fired
 * once when the op completes, never shared with another op and never reset. A one-shot latch
 * cannot be rebound, which is the point: a future waiting on it can only ever be woken by its own
 * op. Not final only so that a test can substitute a deliberately shared signal and watch the I1
 * test fail.
 */
class OpSignal {
    private final CountDownLatch latch = new CountDownLatch(1);
    /** A thread that waits for this signal elsewhere than on it (a helper on its completion queue). */
    private volatile Thread helper;

    /** Wakes every waiter, now and later, and the helper wherever it waits. */
    void fire() {
        latch.countDown();
        Thread h = helper;
        if (h != null) {
            LockSupport.unpark(h);
        }
    }

    /**
     * The thread that waits for this signal by handling completions ({@link RailDrain#help}), or null
     * when it leaves: the op's completion may be handled by another thread while this one is parked
     * on the queue, and the fire must wake it there, not at its next re-check.
     */
    void helper(Thread t) {
        helper = t;
    }

    boolean isFired() {
        return latch.getCount() == 0;
    }

    void await() throws InterruptedException {
        latch.await();
    }

    /** Waits up to {@code nanos}; whether the signal fired. */
    boolean await(long nanos) throws InterruptedException {
        return latch.await(nanos, TimeUnit.NANOSECONDS);
    }
}
