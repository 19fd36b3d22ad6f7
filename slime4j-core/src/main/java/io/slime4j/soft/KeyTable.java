package io.slime4j.soft;

import io.slime4j.verbs.AccessFlags;

import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * A device's registered regions, found by key. A key is {@code tag << INDEX_BITS | index}: the
 * index finds the slot, the 44 random tag bits (from {@link SecureRandom}) make keys unguessable
 * and make a stale key, whose slot was reused, miss. Lookups are lock-free reads of volatile
 * state; registration and deregistration synchronise among themselves.
 */
final class KeyTable {
    static final int INDEX_BITS = 20;
    static final int MAX_REGIONS = 1 << INDEX_BITS;
    private static final long INDEX_MASK = MAX_REGIONS - 1;

    /** One registered region; immutable once published, except for {@link #valid}. */
    static final class Entry {
        final MemorySegment segment;
        final long address;
        final long length;
        final int access;
        final long localKey;
        final long remoteKey;
        final SoftProtectionDomain pd;
        volatile boolean valid = true;

        Entry(MemorySegment segment, int access, long localKey, long remoteKey, SoftProtectionDomain pd) {
            this.segment = segment;
            this.address = segment.address();
            this.length = segment.byteSize();
            this.access = access;
            this.localKey = localKey;
            this.remoteKey = remoteKey;
            this.pd = pd;
        }

        /**
         * Offset of {@code [addr, addr + len)} in this region, or -1 when any byte lies outside.
         * Addresses compare unsigned and no sum is formed, so nothing can wrap.
         */
        long offsetOf(long addr, long len) {
            if (len < 0 || Long.compareUnsigned(addr, address) < 0) {
                return -1;
            }
            long off = addr - address;
            if (Long.compareUnsigned(off, length) > 0 || len > length - off) {
                return -1;
            }
            return off;
        }
    }

    private final SecureRandom random = new SecureRandom();
    private volatile Entry[] byIndex = new Entry[64];
    private int nextIndex;
    private int count;

    /** Registers and returns the entry; throws if the table is full. */
    synchronized Entry register(MemorySegment segment, int access, SoftProtectionDomain pd) {
        AccessFlags.validate(access);
        if (count == MAX_REGIONS) {
            throw new IllegalStateException("too many registered regions on this device (" + MAX_REGIONS + ")");
        }
        Entry[] table = byIndex;
        if (count == table.length) {
            table = Arrays.copyOf(table, table.length * 2);
            nextIndex = count;
        }
        while (table[nextIndex] != null) {
            nextIndex = (nextIndex + 1) % table.length;
        }
        int index = nextIndex;
        long localKey = key(index);
        long remoteKey;
        do {
            remoteKey = key(index);
        } while (remoteKey == localKey);
        Entry e = new Entry(segment, access, localKey, remoteKey, pd);
        table[index] = e;
        count++;
        byIndex = table; // volatile publish (also when the array was not replaced)
        return e;
    }

    private long key(int index) {
        long tag = random.nextLong() >>> INDEX_BITS;
        return (tag == 0 ? 1 : tag) << INDEX_BITS | index;
    }

    /** Invalidates the entry at once and frees its slot. */
    synchronized void deregister(Entry e) {
        if (!e.valid) {
            return;
        }
        e.valid = false;
        Entry[] table = byIndex;
        int index = (int) (e.localKey & INDEX_MASK);
        if (index < table.length && table[index] == e) {
            table[index] = null;
            count--;
            byIndex = table;
        }
    }

    /** The valid region whose local key is {@code key}, or null. */
    Entry byLocalKey(long key) {
        Entry e = slot(key);
        return e != null && e.valid && e.localKey == key ? e : null;
    }

    /** The valid region whose remote key is {@code key}, or null. */
    Entry byRemoteKey(long key) {
        Entry e = slot(key);
        return e != null && e.valid && e.remoteKey == key ? e : null;
    }

    private Entry slot(long key) {
        Entry[] table = byIndex;
        long index = key & INDEX_MASK;
        return index < table.length ? table[(int) index] : null;
    }
}
