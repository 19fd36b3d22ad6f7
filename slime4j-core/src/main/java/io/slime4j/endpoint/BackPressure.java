package io.slime4j.endpoint;

import java.time.Duration;

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
     * Takes a resource of {@code rail} (-1: the messages' rail, {@link OpTracker#drainer(int)})
     * within the bound ({@link ResourceWait}); null when none came free.
     */
    <T> T await(int rail, Awaited free, ResourceWait.Attempt<T> attempt) throws InterruptedException {
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
    boolean permit(int rail, Awaited free, java.util.function.BooleanSupplier now, TimedTry within)
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

    /** Leases a slot of {@code pool} (whose ops complete on {@code rail}) within the bound, or throws {@link EndpointBusyException}. */
    Slot lease(SlotPool pool, int rail, String what) {
        Slot free = pool.tryAcquire(); // no wait, nothing allocated
        if (free != null) {
            return free;
        }
        try {
            Slot s = await(rail, () -> pool.free() > 0, new ResourceWait.Attempt<>() {
                @Override
                public Slot now() {
                    return pool.tryAcquire();
                }

                @Override
                public Slot within(long nanos) throws InterruptedException {
                    return pool.acquire(nanos);
                }
            });
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
