package io.slime4j.wire.inproc;

import java.lang.foreign.MemorySegment;
import java.util.Comparator;

/**
 * One copy of a datagram in flight: a pooled buffer owned by the sending port, filled by its
 * sending thread, queued on the destination's channel, handed to the receive handler and returned
 * to the owner's pool. Buffers are heap segments over {@code long[]} (8-byte aligned, so aligned
 * layouts work) sized to a power of two of at least {@link #MIN_CAPACITY} bytes.
 */
final class Packet {

    /** Smallest buffer allocated, in bytes. */
    static final int MIN_CAPACITY = 2048;

    /** Orders held packets by due time (wrap-safe), then by the order they were held in. */
    static final Comparator<Packet> BY_DUE_TIME = (a, b) -> {
        int c = Long.signum(a.dueNanos - b.dueNanos);
        return c != 0 ? c : Long.compare(a.holdOrder, b.holdOrder);
    };

    /** The sending port; its pool takes the packet back. */
    final InprocPort owner;
    /** The buffer; at least {@link #length} bytes. */
    MemorySegment buffer;
    /** Bytes of the datagram. */
    int length;
    /** Whether the copy must wait until {@link #dueNanos}. */
    boolean timed;
    /** When a timed copy may be handed over, in {@link System#nanoTime()} units. */
    long dueNanos;
    /** Receiver-local sequence breaking ties between equal due times. */
    long holdOrder;

    Packet(InprocPort owner) {
        this.owner = owner;
        this.buffer = allocate(MIN_CAPACITY);
    }

    /** Copies {@code length} bytes of {@code source} into the buffer, growing it if needed. */
    void fill(MemorySegment source, int length) {
        if (buffer.byteSize() < length) {
            buffer = allocate(Math.max(MIN_CAPACITY, Integer.highestOneBit(length - 1) << 1));
        }
        MemorySegment.copy(source, 0, buffer, 0, length);
        this.length = length;
    }

    private static MemorySegment allocate(int capacity) {
        return MemorySegment.ofArray(new long[capacity >>> 3]);
    }
}
