package io.slime4j.soft;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads parked on one completion queue, for its producer to wake: a few fixed places taken
 * by compare-and-set, so registering, leaving and waking allocate nothing (a set would allocate a
 * node per wait and an iterator per wake-up, on the progress agent's path). More parked threads
 * than places (unusual: a dispatch thread and a helping caller or two wait on a queue) go to a
 * concurrent set instead; a wake-up looks there only when it is in use.
 */
final class ParkedThreads {
    static final int PLACES = 8;

    private final AtomicReferenceArray<Thread> places = new AtomicReferenceArray<>(PLACES);
    private final Set<Thread> overflow = ConcurrentHashMap.newKeySet();

    /** Registers {@code t}; returns its place, or -1 when it went to the overflow set (pass it to {@link #remove}). */
    int add(Thread t) {
        for (int i = 0; i < PLACES; i++) {
            if (places.get(i) == null && places.compareAndSet(i, null, t)) {
                return i;
            }
        }
        overflow.add(t);
        return -1;
    }

    /** Unregisters {@code t} from the place {@link #add} returned. */
    void remove(Thread t, int place) {
        if (place >= 0) {
            places.compareAndSet(place, t, null);
        } else {
            overflow.remove(t);
        }
    }

    /** Unparks every registered thread. */
    void wakeAll() {
        for (int i = 0; i < PLACES; i++) {
            Thread t = places.get(i);
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
        if (!overflow.isEmpty()) { // no iterator unless someone is there
            for (Thread t : overflow) {
                LockSupport.unpark(t);
            }
        }
    }
}
