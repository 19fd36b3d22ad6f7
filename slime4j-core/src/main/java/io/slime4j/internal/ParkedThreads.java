package io.slime4j.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads parked on one completion queue (the soft engine's or the shm device's), for its
 * producer to wake: a few fixed places taken by compare-and-set, so registering, leaving and waking
 * allocate nothing (a set would allocate a node per wait and an iterator per wake-up, on the
 * producer's path). More parked threads than places (unusual: a dispatch thread and a helping
 * caller or two wait on a queue) go to a concurrent set instead; a wake-up looks there only when it
 * is in use.
 */
public final class ParkedThreads {
    /** Threads that get a fixed place; more go to the overflow set. */
    public static final int PLACES = 8;

    private final AtomicReferenceArray<Thread> places = new AtomicReferenceArray<>(PLACES);
    private final Set<Thread> overflow = ConcurrentHashMap.newKeySet();
    /**
     * Threads in {@link #overflow}, counted up before they go in and down after they left: a wake-up
     * that reads 0 missed no one (a concurrent map's own size is not a snapshot).
     */
    private final AtomicInteger overflowed = new AtomicInteger();

    /** An empty set of places. */
    public ParkedThreads() {
    }

    /** Registers {@code t}; returns its place, or -1 when it went to the overflow set (pass it to {@link #remove}). */
    public int add(Thread t) {
        for (int i = 0; i < PLACES; i++) {
            if (places.get(i) == null && places.compareAndSet(i, null, t)) {
                return i;
            }
        }
        overflowed.incrementAndGet();
        overflow.add(t);
        return -1;
    }

    /** Unregisters {@code t} from the place {@link #add} returned. */
    public void remove(Thread t, int place) {
        if (place >= 0) {
            places.compareAndSet(place, t, null);
        } else {
            overflow.remove(t);
            overflowed.decrementAndGet();
        }
    }

    /** Unparks every registered thread. */
    public void wakeAll() {
        for (int i = 0; i < PLACES; i++) {
            Thread t = places.get(i);
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
        if (overflowed.get() > 0) { // no iterator unless someone is there
            for (Thread t : overflow) {
                LockSupport.unpark(t);
            }
        }
    }
}
