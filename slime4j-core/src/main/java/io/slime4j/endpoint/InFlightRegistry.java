package io.slime4j.endpoint;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The endpoint's weak registry of live ops: what {@link RdmaEndpoint#cancelAll()} walks instead
 * of the slot pools. An op enters when it is created and leaves when it completes. References are
 * weak, so the registry never keeps an op alive (I4): an op nobody else holds any more is
 * collected, and its entry is expunged.
 */
final class InFlightRegistry {
    private static final class Entry extends WeakReference<OpState> {
        final long seq;

        Entry(OpState op, ReferenceQueue<OpState> queue) {
            super(op, queue);
            this.seq = op.seq;
        }
    }

    private final ConcurrentHashMap<Long, Entry> live = new ConcurrentHashMap<>();
    private final ReferenceQueue<OpState> collected = new ReferenceQueue<>();

    void add(OpState op) {
        expunge();
        live.put(op.seq, new Entry(op, collected));
    }

    void remove(OpState op) {
        Entry e = live.remove(op.seq);
        if (e != null) {
            e.clear();
        }
    }

    /** The ops that are registered and still reachable, in no particular order. */
    List<OpState> liveOps() {
        expunge();
        List<OpState> ops = new ArrayList<>(live.size());
        for (Entry e : live.values()) {
            OpState op = e.get();
            if (op != null) {
                ops.add(op);
            }
        }
        return ops;
    }

    /** Entries, collected ones not yet expunged included. */
    int size() {
        expunge();
        return live.size();
    }

    private void expunge() {
        Object r;
        while ((r = collected.poll()) != null) {
            Entry e = (Entry) r;
            live.remove(e.seq, e);
        }
    }
}
