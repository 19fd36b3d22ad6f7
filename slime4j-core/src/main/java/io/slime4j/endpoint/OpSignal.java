package io.slime4j.endpoint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * The completion signal of one operation (invariant I1): every {@link OpState} is one (it extends
 * this class, so the signal costs no object of its own), fired once when the op completes, never
 * shared with another op and never reset. A one-shot signal cannot be rebound, which is the point:
 * a future waiting on it can only ever be woken by its own op. Not final only so that a test can
 * substitute a deliberately shared signal and watch the I1 test fail.
 *
 * <p>It costs no object of its own and no lock: a volatile flag and the one thread parked on it. A
 * waiter spins briefly ({@value #SPINS} checks), then registers itself and parks until
 * {@link #fire} unparks it; a second thread waiting on the same op at the same time (rare) finds
 * the place taken and re-checks on a timed park, from {@value #POLL_MIN_NANOS} ns doubling up to
 * {@value #POLL_MAX_NANOS} ns. The flag is written before the waiter is read, and the waiter
 * before the flag is read again, both volatile, so a wake-up is never lost.
 */
class OpSignal extends ForwardingStage<TransferFuture> implements Awaited {
    /** Checks of the flag before a waiter parks. */
    static final int SPINS = 64;
    static final long POLL_MIN_NANOS = 50_000;
    static final long POLL_MAX_NANOS = 1_000_000;

    private static final VarHandle WAITER;

    static {
        try {
            WAITER = MethodHandles.lookup().findVarHandle(OpSignal.class, "waiter", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile boolean fired;
    @SuppressWarnings("unused") private volatile Thread waiter;

    /** Wakes every waiter, now and later. */
    void fire() {
        fired = true;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    @Override
    public boolean isFired() {
        return fired;
    }

    void awaitFired() throws InterruptedException {
        while (!awaitFired(Long.MAX_VALUE / 2)) {
            // a wait of 146 years timed out: wait again
        }
    }

    /** Waits up to {@code nanos}; whether the signal fired. */
    boolean awaitFired(long nanos) throws InterruptedException {
        for (int i = 0; i < SPINS; i++) {
            if (fired) {
                return true;
            }
            Thread.onSpinWait();
        }
        if (nanos <= 0) {
            return fired;
        }
        Thread me = Thread.currentThread();
        boolean own = WAITER.compareAndSet(this, null, me) || waiter == me;
        long deadline = System.nanoTime() + nanos;
        long poll = POLL_MIN_NANOS;
        try {
            while (!fired) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                if (own) {
                    LockSupport.parkNanos(this, left);
                } else {
                    LockSupport.parkNanos(this, Math.min(left, poll));
                    poll = Math.min(poll * 2, POLL_MAX_NANOS);
                }
            }
            return true;
        } finally {
            if (own) {
                WAITER.compareAndSet(this, me, null);
            }
        }
    }

    /**
     * A bare signal has no stage: only its subclass {@link TransferFuture} (through {@link OpState})
     * is a {@link java.util.concurrent.CompletionStage}. The signal is the root of that chain so
     * that an op, its signal and its future are one object.
     */
    @Override
    CompletableFuture<TransferFuture> stage() {
        throw new UnsupportedOperationException("a bare signal has no completion stage");
    }
}
