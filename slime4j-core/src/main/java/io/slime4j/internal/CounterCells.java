package io.slime4j.internal;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The storage behind a device's {@link io.slime4j.verbs.Counters} and its queue pairs', for the
 * engines: counters by id, each added to with one atomic update by whichever thread counts. A
 * device's cells are the root; each queue pair's are a {@link #child} of them, and the root's
 * {@link #get} is its own counts plus every live child's, so a count is stored once (in the queue
 * pair's cells) and summed when read. (A queue pair that also added into its device's cells made
 * every count two atomic updates on two cache lines; without the second, the shm write rate rose
 * by 1–15% at 4 KiB and 7–9% at 64 KiB: docs/PERFORMANCE.md.) Reading is rare (statistics, tests,
 * JMX); counting happens on every packet or request.
 *
 * <p>When its queue pair is gone, a child is {@link #retire retired}: its counts move into the
 * root's own cells, so the device's totals keep them, and a count made after that (a completion of
 * the flushed queue pair polled later, say) goes there directly. Every count moves at most once (a
 * swap), and only the retirement's sweep and the counts that race it move anything. A read of the
 * root that overlaps a move waits for it and reads again: the device's totals never go back and
 * never count anything twice (a count that raced the retirement may show a moment late). A
 * child's own view (its cells and what moved out of them, read in that order) never counts twice;
 * while a count moves it may lack it.
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
    /** Moves under way into this root's cells, and moves ended: what a read checks it did not overlap. */
    private final AtomicInteger moving;
    private final AtomicLong movesEnded;

    /**
     * Root cells for counters of ids {@code 0..size-1}; {@code stride} longs apart (8 puts each on a
     * cache line of its own, for counters that different threads update; 1 packs them).
     *
     * @throws IllegalArgumentException if {@code size} or {@code stride} is not positive, or the
     *                                  cells would not fit one array
     */
    public CounterCells(int size, int stride) {
        this(size, stride, null);
    }

    private CounterCells(int size, int stride, CounterCells parent) {
        if (size < 1 || stride < 1 || (long) size * stride > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("size and stride must be positive and their product fit an array, were "
                    + size + " and " + stride);
        }
        this.size = size;
        this.stride = stride;
        this.values = new AtomicLongArray(size * stride);
        this.parent = parent;
        this.moved = parent == null ? null : new AtomicLongArray(size);
        this.moving = parent == null ? new AtomicInteger() : null;
        this.movesEnded = parent == null ? new AtomicLong() : null;
    }

    /**
     * New cells of a queue pair, counted in this root's totals until {@link #retire retired}.
     *
     * @throws IllegalStateException if these are a child's cells
     */
    public CounterCells child() {
        if (parent != null) {
            throw new IllegalStateException("a child's cells have no children");
        }
        CounterCells c = new CounterCells(size, stride, this);
        synchronized (this) {
            CounterCells[] old = children;
            CounterCells[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = c;
            children = grown;
        }
        return c;
    }

    /** Adds {@code delta} to counter {@code id}. */
    public void add(int id, long delta) {
        if (retired) { // a late count: straight into the root's cell, nothing to move
            parent.values.getAndAdd(id * stride, delta);
            moved.getAndAdd(id, delta);
            return;
        }
        values.getAndAdd(id * stride, delta);
        if (retired) { // read after the add: the retirement's sweep may have passed this cell already
            move(id);
        }
    }

    /** Counter {@code id}: a root's own counts and its live children's; a child's own. */
    public long get(int id) {
        if (parent != null) {
            long m = moved.get(id); // first: a count gets here only after it left values
            return values.get(id * stride) + m;
        }
        for (int spins = 0; ; spins++) {
            long ended = movesEnded.get();
            if (moving.get() == 0) {
                long sum = values.get(id * stride);
                for (CounterCells c : children) {
                    sum += c.values.get(id * stride);
                }
                if (moving.get() == 0 && movesEnded.get() == ended) {
                    return sum; // no move began or ended meanwhile: every count was seen once
                }
            }
            // a move is under way: a few atomic updates of a running thread (a retirement's sweep, or
            // a count that raced it), and no new ones start once the retirement is over
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    /**
     * The queue pair of these child cells is gone: from now on the root's own cells hold its counts
     * (idempotent). Its later counts still reach both its own view and the root's totals.
     *
     * @throws IllegalStateException if these are a root's cells
     */
    public void retire() {
        if (parent == null) {
            throw new IllegalStateException("root cells are never retired");
        }
        parent.moving.incrementAndGet(); // before the child leaves the list: a read overlapping that reads again
        try {
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
                moveCell(id);
            }
        } finally {
            parent.movesEnded.incrementAndGet();
            parent.moving.decrementAndGet();
        }
    }

    /** Moves what cell {@code id} holds into the parent's own cell, announced to the parent's readers. */
    private void move(int id) {
        parent.moving.incrementAndGet();
        try {
            moveCell(id);
        } finally {
            parent.movesEnded.incrementAndGet();
            parent.moving.decrementAndGet();
        }
    }

    /** Each count is taken once (a swap), and reaches the parent's cell before it counts as moved here. */
    private void moveCell(int id) {
        long v = values.getAndSet(id * stride, 0);
        if (v != 0) {
            parent.values.getAndAdd(id * stride, v);
            moved.getAndAdd(id, v);
        }
    }
}
