package io.slime4j.shm;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/** Counters of an shm device or queue pair; a queue pair's set also adds into its device's. */
final class ShmCounters implements Counters {
    private static final Counter[] COUNTERS = Counter.values();

    private static final int SIZE = java.util.Arrays.stream(COUNTERS).mapToInt(Counter::id).max().orElse(0) + 1;

    /** Each counter on its own cache line: the agent and posting or polling threads count different ones. */
    private static final int STRIDE = 8;

    private final AtomicLongArray values = new AtomicLongArray(SIZE * STRIDE);
    private final ShmCounters parent;

    ShmCounters(ShmCounters parent) {
        this.parent = parent;
    }

    void increment(Counter c) {
        add(c, 1);
    }

    void add(Counter c, long delta) {
        values.getAndAdd(c.id() * STRIDE, delta);
        if (parent != null) {
            parent.add(c, delta);
        }
    }

    @Override
    public long get(Counter counter) {
        return values.get(counter.id() * STRIDE);
    }

    @Override
    public Map<Counter, Long> snapshot() {
        Map<Counter, Long> map = new EnumMap<>(Counter.class);
        for (Counter c : COUNTERS) {
            map.put(c, values.get(c.id() * STRIDE));
        }
        return map;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (Counter c : COUNTERS) {
            long v = values.get(c.id() * STRIDE);
            if (v != 0) {
                sb.append(sb.length() > 1 ? ", " : "").append(c.name()).append('=').append(v);
            }
        }
        return sb.append('}').toString();
    }
}
