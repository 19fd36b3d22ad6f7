package io.slime4j.endpoint;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The bound on every wait of a caller for a resource (a slot, an eager, send-queue or
 * write-with-imm credit): {@link EndpointConfig#slotTimeout()}, the wait itself (which helps the
 * rail's dispatcher where callers drive the device: {@link ResourceWait}), and the one exception
 * that says which resource ran out and what to do about it.
 */
final class BackPressure {
    private final String endpoint;
    private final Duration timeout;
    private final long timeoutNanos;
    private final OpTracker tracker;

    BackPressure(String endpoint, Duration timeout, OpTracker tracker) {
        this.endpoint = endpoint;
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
        this.tracker = tracker;
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    /**
     * Takes a resource of {@code rail} (-1: a message resource, whose rail is the one rail of a
     * single-rail endpoint and none on several: {@link OpTracker#drainer(int)}) within the bound
     * ({@link ResourceWait}); null when none came free.
     */
    private <T> T await(int rail, Awaited free, ResourceWait.Attempt<T> attempt) throws InterruptedException {
        return ResourceWait.await(tracker.drainer(rail), free, attempt, timeoutNanos);
    }

    /** A timed try for a permit: whether one was taken within {@code nanos}. */
    @FunctionalInterface
    interface TimedTry {
        boolean tryFor(long nanos) throws InterruptedException;
    }

    /**
     * Takes a permit of {@code rail} (a credit: {@code free} says whether one is free, {@code now}
     * takes one if so, {@code within} waits for one) within the bound; whether it got one.
     */
    boolean permit(int rail, Awaited free, BooleanSupplier now, TimedTry within)
            throws InterruptedException {
        return await(rail, free, new ResourceWait.Attempt<Boolean>() {
            @Override
            public Boolean now() {
                return now.getAsBoolean() ? Boolean.TRUE : null;
            }

            @Override
            public Boolean within(long nanos) throws InterruptedException {
                return within.tryFor(nanos) ? Boolean.TRUE : null;
            }
        }) != null;
    }

    /**
     * A slot of {@code pool}, whose ops complete on {@code rail}: at once if one is free, else
     * waiting within the bound ({@link #await}); null when none came free.
     */
    Slot slot(SlotPool pool, int rail) throws InterruptedException {
        Slot free = pool.tryAcquire(); // no wait, nothing allocated
        if (free != null) {
            return free;
        }
        return await(rail, () -> pool.free() > 0, new ResourceWait.Attempt<>() {
            @Override
            public Slot now() {
                return pool.tryAcquire();
            }

            @Override
            public Slot within(long nanos) throws InterruptedException {
                return pool.acquire(nanos);
            }
        });
    }

    /** Leases a slot of {@code pool} (whose ops complete on {@code rail}) within the bound, or throws {@link EndpointBusyException}. */
    Slot lease(SlotPool pool, int rail, String what) {
        try {
            Slot s = slot(pool, rail);
            if (s == null) {
                throw busy("no free " + what + " slot (" + pool.capacity() + " in the pool)");
            }
            return s;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EndpointException("endpoint " + endpoint + ": interrupted waiting for a " + what + " slot", e);
        }
    }

    EndpointBusyException busy(String what) {
        return new EndpointBusyException("endpoint " + endpoint + ": " + what + " within " + timeout
                + " (back-pressure): wait for outstanding operations, or raise the pool size or slotTimeout");
    }
}
