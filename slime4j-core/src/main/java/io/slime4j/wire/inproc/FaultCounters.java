package io.slime4j.wire.inproc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Single-writer counters of one port: each instance is incremented by one thread (plain read,
 * opaque write, as Aeron's ordered counters) and read by any thread with opaque loads. A port keeps
 * one instance for its sending thread and one for its receiving thread so that the two never share
 * a writer.
 */
final class FaultCounters {

    /** Index of {@link FaultStats#packetsSent()}. */
    static final int SENT = 0;
    /** Index of {@link FaultStats#packetsDelivered()}. */
    static final int DELIVERED = 1;
    /** Index of {@link FaultStats#dropped()}. */
    static final int DROPPED = 2;
    /** Index of {@link FaultStats#duplicated()}. */
    static final int DUPLICATED = 3;
    /** Index of {@link FaultStats#reordered()}. */
    static final int REORDERED = 4;
    /** Index of {@link FaultStats#delayed()}. */
    static final int DELAYED = 5;
    /** Index of {@link FaultStats#queueFullDrops()}. */
    static final int QUEUE_FULL = 6;
    /** Index of {@link FaultStats#unknownDestinationDrops()}. */
    static final int UNKNOWN_DESTINATION = 7;
    /** Number of counters. */
    static final int COUNT = 8;

    private static final VarHandle VALUE = MethodHandles.arrayElementVarHandle(long[].class);

    // Padded at the end so that two instances allocated one after the other share no cache line.
    private final long[] values = new long[COUNT + 8];

    /** Adds one to counter {@code index}; the owning thread only. */
    void increment(int index) {
        VALUE.setOpaque(values, index, values[index] + 1);
    }

    /** Adds every counter into {@code totals}; any thread. */
    void addTo(long[] totals) {
        for (int i = 0; i < COUNT; i++) {
            totals[i] += (long) VALUE.getOpaque(values, i);
        }
    }
}
