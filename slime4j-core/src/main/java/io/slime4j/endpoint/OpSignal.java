package io.slime4j.endpoint;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The completion signal of one operation (invariant I1): created with its {@link OpState}, fired
 * once when the op completes, never shared with another op and never reset. A one-shot latch
 * cannot be rebound, which is the point: a future waiting on it can only ever be woken by its own
 * op. Not final only so that a test can substitute a deliberately shared signal and watch the I1
 * test fail.
 */
class OpSignal {
    private final CountDownLatch latch = new CountDownLatch(1);

    /** Wakes every waiter, now and later. */
    void fire() {
        latch.countDown();
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
