package io.slime4j.shm;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The keys of one device: {@code tag << 20 | index}, the tag 44 random bits, so a key cannot be
 * guessed and a stale key never opens a region registered later in the same slot. Lookups take no
 * lock; registration and removal are serialised.
 */
final class RegionTable {
    static final int INDEX_BITS = 20;
    private static final int CAPACITY = 1 << INDEX_BITS;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final AtomicReferenceArray<ShmRegion> slots = new AtomicReferenceArray<>(CAPACITY);
    private int next = 1;

    /** A fresh key for a free slot. */
    synchronized long newKey() {
        for (int i = 0; i < CAPACITY; i++) {
            int index = next;
            next = next + 1 == CAPACITY ? 1 : next + 1;
            if (slots.get(index) == null) {
                long tag = RANDOM.nextLong() & ((1L << (64 - INDEX_BITS)) - 1);
                return tag << INDEX_BITS | index;
            }
        }
        throw new ShmException("no free memory region slot (" + (CAPACITY - 1) + " registered)");
    }

    synchronized void add(ShmRegion region) {
        slots.set(index(region.key), region);
    }

    synchronized void remove(ShmRegion region) {
        slots.compareAndSet(index(region.key), region, null);
    }

    /** The registered region with exactly this key, or null. */
    ShmRegion lookup(long key) {
        ShmRegion r = slots.get(index(key));
        return r != null && r.key == key && r.isRegistered() ? r : null;
    }

    private static int index(long key) {
        return (int) (key & (CAPACITY - 1));
    }
}
