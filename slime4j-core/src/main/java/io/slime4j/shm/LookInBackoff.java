package io.slime4j.shm;

/**
 * How long a busy-polling device's agent parks between its looks while a waiter drives the device
 * ({@link ShmDevice}): the first park is short, each next one twice as long up to a cap; an idle
 * turn of the agent's that finds no waiter driving starts it short again. Every look is a timer
 * interrupt and two context switches, and on a machine with no spare core each one preempts the
 * spinning waiter; the cap bounds how long work that only the agent does waits once the waiters
 * stop.
 */
final class LookInBackoff {
    private final long minNanos;
    private final long maxNanos;
    private long next;

    LookInBackoff(long minNanos, long maxNanos) {
        if (minNanos <= 0 || maxNanos < minNanos || maxNanos > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("look-in backoff needs 0 < min <= max <= Long.MAX_VALUE / 2, was "
                    + minNanos + ", " + maxNanos);
        }
        this.minNanos = minNanos;
        this.maxNanos = maxNanos;
        this.next = minNanos;
    }

    /** The next park, in nanoseconds; the one after it is twice as long, up to the cap. */
    long next() {
        long n = next;
        next = Math.min(n * 2, maxNanos);
        return n;
    }

    /** No waiter drives any more (the agent's idle turn found none): the next park is the shortest again. */
    void reset() {
        next = minNanos;
    }
}
