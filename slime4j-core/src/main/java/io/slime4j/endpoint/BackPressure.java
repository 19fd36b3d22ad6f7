package io.slime4j.endpoint;

import java.time.Duration;

/**
 * The bound on every wait of a caller for a resource (a slot, a send-queue or write-with-imm
 * credit): {@link EndpointConfig#slotTimeout()}, and the one exception that says which resource ran
 * out and what to do about it.
 */
final class BackPressure {
    private final String endpoint;
    private final Duration timeout;
    private final long timeoutNanos;

    BackPressure(String endpoint, Duration timeout) {
        this.endpoint = endpoint;
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    /** Leases a slot of {@code pool} within the bound, or throws {@link EndpointBusyException}. */
    Slot lease(SlotPool pool, String what) {
        try {
            Slot s = pool.acquire(timeoutNanos);
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
