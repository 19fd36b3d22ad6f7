package io.slime4j.verbs;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The storage behind a device's {@link Counters} and its queue pairs', for device implementations:
 * counters by id, each added to with one atomic update by whichever thread counts. A device's cells
 * are the root; each queue pair's are a {@link #child} of them, and the root's {@link #get} is its
 * own counts plus every live child's, so a count is stored once (in the queue pair's cells) and
 * summed when read. (A queue pair that also added into its device's cells made every count two
 * atomic updates on two cache lines: about 15% of a 4 KiB shm write, docs/PERFORMANCE.md.)
 * Reading is rare (statistics, tests, JMX); counting is on every packet or request.
 *
 * <p>When its queue pair is gone, a child is {@link #retire retired}: its counts move into the
 * root's own cells, so the device's totals keep them, and a count made after that (a completion of
 * the flushed queue pair polled later, say) moves there as it is made. Every count moves exactly
 * once; a read that races with a move may miss that one count for that moment, as a read that
 * races with the count itself does. The child's own {@link #get} keeps counting everything.
 */
public final class CounterCells {
    private static final CounterCells[] NONE = new CounterCells[0];

    private final int size;
    private final int stride;
    private final AtomicLongArray values;
    private final CounterCells parent;
    /** Counts moved to the parent at and after retirement (a child's own view adds them back). */
    private final AtomicLongArray moved;
    private volatile boolean retired;
    /** The live children (root only), copied on change: queue pairs come and go rarely. */
    private volatile CounterCells[] children = NONE;

    /**
     * Root cells for counters of ids {@code 0..size-1}; {@code stride} longs apart (8 puts each on a
     * cache line of its own, for counters that different threads update; 1 packs them).
     */
    public CounterCells(int size, int stride) {
        this(size, stride, null);
    }

    private CounterCells(int size, int stride, CounterCells parent) {
        if (size < 1 || stride < 1) {
            throw new IllegalArgumentException("size and stride must be positive, were " + size + " and " + stride);
        }
        this.size = size;
        this.stride = stride;
        this.values = new AtomicLongArray(size * stride);
        this.parent = parent;
        this.moved = parent == null ? null : new AtomicLongArray(size);
    }

    /** New cells of a queue pair, counted in this root's totals until {@link #retire retired}. */
    public CounterCells child() {
        if (parent != null) {
            throw new IllegalStateException("a child's cells have no children");
        }
        CounterCells c = new CounterCells(size, stride, this);
        synchronized (this) {
            CounterCells[] old = children;
            CounterCells[] grown = java.util.Arrays.copyOf(old, old.length + 1);
            grown[old.length] = c;
            children = grown;
        }
        return c;
    }

    /** Adds {@code delta} to counter {@code id}. */
    public void add(int id, long delta) {
        values.getAndAdd(id * stride, delta);
        if (retired) { // read after the add: a retirement that did not see the add moves it here
            move(id);
        }
    }

    /** Counter {@code id}: a root's own counts and its live children's; a child's own. */
    public long get(int id) {
        long v = values.get(id * stride);
        if (parent != null) {
            return v + moved.get(id);
        }
        for (CounterCells c : children) {
            v += c.values.get(id * stride);
        }
        return v;
    }

    /**
     * The queue pair of these child cells is gone: from now on the root's own cells hold its counts
     * (idempotent). Its later counts still reach both its own view and the root's totals.
     */
    public void retire() {
        if (parent == null) {
            throw new IllegalStateException("root cells are never retired");
        }
        synchronized (parent) {
            if (retired) {
                return;
            }
            retired = true; // then sweep: an add this write did not reach sees it and moves itself
            CounterCells[] old = parent.children;
            CounterCells[] left = new CounterCells[old.length - 1];
            int n = 0;
            for (CounterCells c : old) {
                if (c != this) {
                    left[n++] = c;
                }
            }
            parent.children = left;
        }
        for (int id = 0; id < size; id++) {
            move(id);
        }
    }

    /** Moves what cell {@code id} holds into the parent's own cell: each count is taken once (a swap). */
    private void move(int id) {
        long v = values.getAndSet(id * stride, 0);
        if (v != 0) {
            moved.getAndAdd(id, v);
            parent.values.getAndAdd(id * stride, v);
        }
    }
}
