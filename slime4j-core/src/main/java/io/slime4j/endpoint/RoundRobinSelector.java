package io.slime4j.endpoint;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@code round-robin} selector (rxm's round-robin policy, seed 002): message-path traffic and
 * lone immediates on lane 0; one-sided units round-robin over the data lanes — 1..qps-1, or every
 * lane when there is one or when told to include lane 0.
 *
 * <p><b>SAR pinning.</b> The first segment of a unit picks a lane and pins it under the unit's
 * message id; middle segments reuse the pin; the last segment reuses it and removes it. The pin can
 * go at the last segment because the endpoint selects a unit's segments in order, by one thread,
 * before posting them in that order: once the last one is selected no later segment of the unit
 * exists that could take another lane and overtake. The table is bounded
 * ({@link #DEFAULT_PIN_CAPACITY} by default): it holds only units being planned right now; were it
 * full (a planner abandoned units, which the endpoint never does), the oldest pin is evicted and
 * counted, never grown.
 */
final class RoundRobinSelector implements QpSelector {
    /** Pins held at most. */
    static final int DEFAULT_PIN_CAPACITY = 4096;

    private final boolean includeLaneZero;
    private final int capacity;
    private final AtomicInteger next = new AtomicInteger();
    private final LinkedHashMap<Long, Integer> pins;
    private final LongAdder evicted = new LongAdder();

    RoundRobinSelector(boolean includeLaneZero, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("pin capacity must be positive, was " + capacity);
        }
        this.includeLaneZero = includeLaneZero;
        this.capacity = capacity;
        this.pins = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Integer> eldest) {
                if (size() > RoundRobinSelector.this.capacity) {
                    evicted.increment();
                    return true;
                }
                return false;
            }
        };
    }

    @Override
    public int select(QpOpType type, long messageId, int qps) {
        return switch (type) {
            case CONTROL, RENDEZVOUS_DATA, EAGER, ATOMIC -> 0;
            case READ, WRITE -> nextDataLane(qps);
            case SAR_FIRST, SAR_MIDDLE, SAR_LAST -> pinned(type, messageId, qps);
        };
    }

    /** The next data lane in turn. */
    int nextDataLane(int qps) {
        if (qps == 1) {
            return 0;
        }
        int n = Math.floorMod(next.getAndIncrement(), includeLaneZero ? qps : qps - 1);
        return includeLaneZero ? n : n + 1;
    }

    private int pinned(QpOpType type, long messageId, int qps) {
        if (qps == 1) {
            return 0;
        }
        synchronized (pins) {
            Integer lane = type == QpOpType.SAR_LAST ? pins.remove(messageId) : pins.get(messageId);
            if (lane == null) {
                lane = nextDataLane(qps); // the first segment (or the only one left of an evicted pin)
                if (type != QpOpType.SAR_LAST) {
                    pins.put(messageId, lane);
                }
            }
            return lane;
        }
    }

    /** Pins held now. */
    int pinnedUnits() {
        synchronized (pins) {
            return pins.size();
        }
    }

    /** The bound of the pin table. */
    int pinCapacity() {
        return capacity;
    }

    /** Pins evicted because the table was full. */
    long evictedPins() {
        return evicted.sum();
    }

    @Override
    public void close() {
        synchronized (pins) {
            pins.clear();
        }
    }

    @Override
    public String toString() {
        return includeLaneZero ? "round-robin-all" : "round-robin";
    }
}
