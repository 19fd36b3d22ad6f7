package io.slime4j.endpoint;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The endpoint's weak registry of live ops: what {@link RdmaEndpoint#cancelAll()} walks instead
 * of the slot pools. An op enters when it is created and leaves when it completes. References are
 * weak, so the registry never keeps an op alive (I4): an op nobody else holds any more is
 * collected, and its entry is expunged.
 *
 * <p>Storage is an array of entries indexed by a free-list, so an op costs its one weak entry and
 * nothing else (no boxed key, no map node); the entry remembers its index, and the op its entry.
 * The array grows (doubling) with the most ops ever live at once and never shrinks. One lock
 * guards it: a registration and a removal each hold it for a few stores.
 */
final class InFlightRegistry {
    /** An op's weak entry and its place in the array. */
    static final class Entry extends WeakReference<OpState> {
        int index = -1;

        Entry(OpState op, ReferenceQueue<OpState> queue) {
            super(op, queue);
        }
    }

    private final ReferenceQueue<OpState> collected = new ReferenceQueue<>();
    private Entry[] entries = new Entry[64];
    private int[] free = new int[64];
    private int freeCount;
    /** Indices ever used: entries[used..] were never filled. */
    private int used;
    private int size;

    void add(OpState op) {
        expunge();
        Entry e = new Entry(op, collected);
        op.registryEntry = e;
        synchronized (this) {
            int i;
            if (freeCount > 0) {
                i = free[--freeCount];
            } else {
                if (used == entries.length) {
                    entries = Arrays.copyOf(entries, used * 2);
                    free = Arrays.copyOf(free, used * 2);
                }
                i = used++;
            }
            entries[i] = e;
            e.index = i;
            size++;
        }
    }

    void remove(OpState op) {
        Entry e = op.registryEntry;
        if (e != null) {
            drop(e);
            e.clear();
        }
    }

    private synchronized void drop(Entry e) {
        int i = e.index;
        if (i >= 0 && entries[i] == e) {
            entries[i] = null;
            e.index = -1;
            free[freeCount++] = i;
            size--;
        }
    }

    /** The ops that are registered and still reachable, in no particular order. */
    List<OpState> liveOps() {
        expunge();
        List<OpState> ops = new ArrayList<>();
        synchronized (this) {
            for (int i = 0; i < used; i++) {
                Entry e = entries[i];
                OpState op = e == null ? null : e.get();
                if (op != null) {
                    ops.add(op);
                }
            }
        }
        return ops;
    }

    /** Entries, collected ones not yet expunged included. */
    int size() {
        expunge();
        synchronized (this) {
            return size;
        }
    }

    private void expunge() {
        Object r;
        while ((r = collected.poll()) != null) {
            drop((Entry) r);
        }
    }
}
