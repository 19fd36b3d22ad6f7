package io.slime4j.shm;

/**
 * How long a busy-polling device's agent parks between its looks while a waiter drives the device
 * ({@link ShmDevice}): the first park is short, each next one twice as long up to a cap, and the
 * first park after the waiters stopped driving is short again. Every look is a timer interrupt and
 * two context switches, and on a machine with no spare core each one preempts the spinning waiter;
 * the cap bounds how long work that only the agent would do waits once the waiters stop.
 */
final class LookInBackoff {
    private final long minNanos;
    private final long maxNanos;
    private long next;

    LookInBackoff(long minNanos, long maxNanos) {
        if (minNanos <= 0 || maxNanos < minNanos) {
            throw new IllegalArgumentException("look-in backoff needs 0 < min <= max, was " + minNanos + ", " + maxNanos);
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

    /** The waiters stopped driving (or the agent was woken): the next park is the shortest again. */
    void reset() {
        next = minNanos;
    }
}
