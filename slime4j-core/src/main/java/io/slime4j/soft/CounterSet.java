package io.slime4j.soft;

import io.slime4j.internal.CounterCells;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;

import java.util.EnumMap;
import java.util.Map;

/**
 * The hardware-neutral {@link Counter}s and the engine's {@link SoftCounter}s of a device or a
 * queue pair, in one array indexed by their (disjoint) ids; written by one thread (the progress
 * agent) or a few (posting and polling threads) and read by any. A queue pair's set is a child of
 * its device's ({@link CounterCells}): a count is one atomic update, and the device's totals (its
 * queue pairs' counts plus device-only events) are summed when read.
 */
final class CounterSet implements Counters {
    private static final Counter[] COUNTERS = Counter.values();
    private static final SoftCounter[] SOFT_COUNTERS = SoftCounter.values();
    private static final int SIZE = maxId() + 1;

    private final CounterCells cells;

    /** A device's counters. */
    CounterSet() {
        this.cells = new CounterCells(SIZE, 1);
    }

    private CounterSet(CounterCells cells) {
        this.cells = cells;
    }

    /** A queue pair's counters, counted in this device's until {@link #retire retired}. */
    CounterSet child() {
        return new CounterSet(cells.child());
    }

    /** The queue pair is gone: its counts stay in the device's totals ({@link CounterCells#retire}). */
    void retire() {
        cells.retire();
    }

    private static int maxId() {
        int max = 0;
        for (Counter c : COUNTERS) {
            max = Math.max(max, c.id());
        }
        for (SoftCounter c : SOFT_COUNTERS) {
            max = Math.max(max, c.id());
        }
        return max;
    }

    void increment(Counter c) {
        add(c.id(), 1);
    }

    void add(Counter c, long delta) {
        add(c.id(), delta);
    }

    void increment(SoftCounter c) {
        add(c.id(), 1);
    }

    void add(SoftCounter c, long delta) {
        add(c.id(), delta);
    }

    private void add(int id, long delta) {
        cells.add(id, delta);
    }

    @Override
    public long get(Counter counter) {
        return cells.get(counter.id());
    }

    long get(SoftCounter counter) {
        return cells.get(counter.id());
    }

    @Override
    public Map<Counter, Long> snapshot() {
        Map<Counter, Long> map = new EnumMap<>(Counter.class);
        for (Counter c : COUNTERS) {
            map.put(c, cells.get(c.id()));
        }
        return map;
    }

    private Map<SoftCounter, Long> softSnapshot() {
        Map<SoftCounter, Long> map = new EnumMap<>(SoftCounter.class);
        for (SoftCounter c : SOFT_COUNTERS) {
            map.put(c, cells.get(c.id()));
        }
        return map;
    }

    /** The protocol counters as their own read-only view. */
    SoftCounters soft() {
        return softView;
    }

    private final SoftCounters softView = new SoftCounters() {
        @Override
        public long get(SoftCounter counter) {
            return CounterSet.this.get(counter);
        }

        @Override
        public Map<SoftCounter, Long> snapshot() {
            return softSnapshot();
        }

        @Override
        public String toString() {
            return CounterSet.this.toString();
        }
    };

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int id = 0; id < SIZE; id++) {
            long v = cells.get(id);
            if (v != 0) {
                sb.append(sb.length() > 1 ? ", " : "").append(name(id)).append('=').append(v);
            }
        }
        return sb.append('}').toString();
    }

    private static String name(int id) {
        for (Counter c : COUNTERS) {
            if (c.id() == id) {
                return c.name();
            }
        }
        for (SoftCounter c : SOFT_COUNTERS) {
            if (c.id() == id) {
                return c.name();
            }
        }
        return "#" + id;
    }
}
