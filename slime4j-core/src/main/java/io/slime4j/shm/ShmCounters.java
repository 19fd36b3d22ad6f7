package io.slime4j.shm;

import io.slime4j.internal.CounterCells;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import java.util.EnumMap;
import java.util.Map;

/**
 * Counters of an shm device or queue pair: a queue pair's are a child of its device's
 * ({@link CounterCells}), so a count is one atomic update and the device's figures are summed when
 * read.
 */
final class ShmCounters implements Counters {
    private static final Counter[] COUNTERS = Counter.values();

    private static final int SIZE = java.util.Arrays.stream(COUNTERS).mapToInt(Counter::id).max().orElse(0) + 1;

    /** Each counter on its own cache line: the agent and posting or polling threads count different ones. */
    private static final int STRIDE = 8;

    private final CounterCells cells;

    /** A device's counters. */
    ShmCounters() {
        this.cells = new CounterCells(SIZE, STRIDE);
    }

    private ShmCounters(CounterCells cells) {
        this.cells = cells;
    }

    /** A queue pair's counters, counted in this device's until {@link #retire retired}. */
    ShmCounters child() {
        return new ShmCounters(cells.child());
    }

    /** The queue pair is gone: its counts stay in the device's totals ({@link CounterCells#retire}). */
    void retire() {
        cells.retire();
    }

    void increment(Counter c) {
        cells.add(c.id(), 1);
    }

    void add(Counter c, long delta) {
        cells.add(c.id(), delta);
    }

    @Override
    public long get(Counter counter) {
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

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (Counter c : COUNTERS) {
            long v = cells.get(c.id());
            if (v != 0) {
                sb.append(sb.length() > 1 ? ", " : "").append(c.name()).append('=').append(v);
            }
        }
        return sb.append('}').toString();
    }
}
