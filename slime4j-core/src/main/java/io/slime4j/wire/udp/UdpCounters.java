package io.slime4j.wire.udp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Single-writer counters of one port (plain read, opaque write; read by any thread with opaque
 * loads). A port keeps one instance for its sending thread and one for its receiving thread so
 * that the two never share a writer.
 */
final class UdpCounters {

    /** Index of {@link UdpPortStats#datagramsSent()}. */
    static final int DATAGRAMS_SENT = 0;
    /** Index of {@link UdpPortStats#bytesSent()}. */
    static final int BYTES_SENT = 1;
    /** Index of {@link UdpPortStats#sendBufferFull()}. */
    static final int SEND_BUFFER_FULL = 2;
    /** Index of {@link UdpPortStats#sendErrors()}. */
    static final int SEND_ERRORS = 3;
    /** Index of {@link UdpPortStats#datagramsReceived()}. */
    static final int DATAGRAMS_RECEIVED = 4;
    /** Index of {@link UdpPortStats#priorityDatagramsReceived()}. */
    static final int PRIORITY_RECEIVED = 5;
    /** Index of {@link UdpPortStats#bytesReceived()}. */
    static final int BYTES_RECEIVED = 6;
    /** Index of {@link UdpPortStats#oversizeDrops()}. */
    static final int OVERSIZE_DROPS = 7;
    /** Index of {@link UdpPortStats#receiveErrors()}. */
    static final int RECEIVE_ERRORS = 8;
    /** Index of {@link UdpPortStats#placedDatagramsReceived()}. */
    static final int PLACED_RECEIVED = 9;
    /** Index of {@link UdpPortStats#predictedDatagramsReceived()}. */
    static final int PREDICTED_RECEIVED = 10;
    /** Index of {@link UdpPortStats#gsoSends()}. */
    static final int GSO_SENDS = 11;
    /** Index of {@link UdpPortStats#coalescedDatagramsReceived()}. */
    static final int COALESCED_RECEIVED = 12;
    /** Index of {@link UdpPortStats#groReceives()}. */
    static final int GRO_RECEIVES = 13;
    /** Index of {@link UdpPortStats#gsoBatches()}. */
    static final int GSO_BATCHES = 14;
    /** Index of {@link UdpPortStats#discardedDatagrams()}. */
    static final int DISCARDED = 15;
    /** Number of counters. */
    static final int COUNT = 16;

    private static final VarHandle VALUE = MethodHandles.arrayElementVarHandle(long[].class);

    // Padded at the end so that two instances allocated one after the other share no cache line.
    private final long[] values = new long[COUNT + 8];

    /** Adds {@code delta} to counter {@code index}; the owning thread only. */
    void add(int index, long delta) {
        VALUE.setOpaque(values, index, values[index] + delta);
    }

    /** Adds one to counter {@code index}; the owning thread only. */
    void increment(int index) {
        add(index, 1);
    }

    /** Adds every counter into {@code totals}; any thread. */
    void addTo(long[] totals) {
        for (int i = 0; i < COUNT; i++) {
            totals[i] += (long) VALUE.getOpaque(values, i);
        }
    }
}
