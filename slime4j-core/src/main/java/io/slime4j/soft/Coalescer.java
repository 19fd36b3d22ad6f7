package io.slime4j.soft;

import io.slime4j.wire.WireAddress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The coalescing buffer of a device's send path: small packets (frames) for the same peer and
 * channel, queued within one agent turn, are appended to one buffer and leave together as a
 * single bundle datagram (docs/WIRE.md, "Coalescing") no larger than the bundle capacity (the
 * path's datagram size), the way Aeron batches frames into one datagram. A buffer that holds a
 * single frame at flush sends it bare, exactly the packet it would have been alone.
 *
 * <p>A frame is never held past {@link #flushAll()}, which the device calls at the end of each
 * duty cycle; a buffer leaves earlier when the next frame does not fit, when the caller is about
 * to send a packet that is not coalesced to the same peer and channel ({@link #flush(WireAddress,
 * boolean)}, so that one channel keeps one order), or when all slots are taken. Buffers are
 * allocated once per slot and reused: nothing is allocated per frame. Agent thread only.
 */
final class Coalescer {
    /** Bundle header: version, type, 16 reserved bits, frame count. */
    static final int BUNDLE_HEADER_LENGTH = 8;
    /** Each frame's length prefix. */
    static final int FRAME_PREFIX_LENGTH = 4;
    /** Peers (and channels) with an open buffer at once; the oldest leaves early when a new one needs a slot. */
    static final int SLOTS = 8;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Where a buffer goes when it leaves. */
    interface Sink {
        /** Sends one datagram of {@code length} bytes from {@code datagram} (copied before return). */
        boolean sendDatagram(WireAddress to, MemorySegment datagram, int length, boolean priority);

        /** One frame left ({@code sent}) or was dropped with its datagram; {@code bundled}: with others. */
        void frameSent(Object tag, int length, boolean sent, boolean bundled);
    }

    private final Sink sink;
    private final int capacity;
    private final int frameLimit;
    private final Slot[] slots = new Slot[SLOTS];
    /** Slots 0..open-1 are open, in the order they were opened. */
    private int open;

    /**
     * @param capacity   the largest datagram a bundle may be (the path's datagram size)
     * @param frameLimit the largest frame that is coalesced (header included); larger ones the
     *                   caller sends alone. At most what fits a bundle with one other frame of
     *                   a bare header, so that coalescing never turns one datagram into two
     */
    Coalescer(Sink sink, int capacity, int frameLimit) {
        this.sink = sink;
        this.capacity = capacity;
        int room = capacity - BUNDLE_HEADER_LENGTH - 2 * FRAME_PREFIX_LENGTH - HeaderFlyweight.HEADER_LENGTH;
        this.frameLimit = Math.max(0, Math.min(frameLimit, room));
    }

    /** Whether a frame of {@code length} bytes is coalesced at all (else the caller sends it alone). */
    boolean accepts(int length) {
        return length <= frameLimit && length >= HeaderFlyweight.HEADER_LENGTH;
    }

    /**
     * Appends a frame made of {@code headerLength} bytes of {@code header} and {@code payloadLength}
     * bytes of {@code payload} from {@code payloadOffset} (both copied now; {@code payload} may be
     * null when {@code payloadLength} is 0) to the buffer of {@code to} and {@code priority}. The
     * frame must be {@link #accepts accepted}.
     */
    void append(WireAddress to, boolean priority, Object tag, MemorySegment header, int headerLength,
                MemorySegment payload, long payloadOffset, int payloadLength) {
        int length = headerLength + payloadLength;
        if (!accepts(length)) {
            throw new IllegalArgumentException("a frame of " + length + " bytes is not coalesced (limit "
                    + frameLimit + ")");
        }
        Slot s = find(to, priority);
        if (s != null && s.used + FRAME_PREFIX_LENGTH + length > capacity) {
            leave(s);
        }
        if (s == null) {
            s = take(to, priority);
        }
        MemorySegment buf = s.buffer;
        buf.set(INT, s.used, length);
        MemorySegment.copy(header, 0, buf, s.used + FRAME_PREFIX_LENGTH, headerLength);
        if (payloadLength > 0) {
            MemorySegment.copy(payload, payloadOffset, buf, s.used + FRAME_PREFIX_LENGTH + headerLength, payloadLength);
        }
        s.tags[s.count] = tag;
        s.lengths[s.count] = length;
        s.count++;
        s.used += FRAME_PREFIX_LENGTH + length;
    }

    /** Sends what is held for {@code to} on {@code priority}'s channel, if anything. */
    void flush(WireAddress to, boolean priority) {
        Slot s = find(to, priority);
        if (s != null) {
            leave(s);
            release(s);
        }
    }

    /**
     * Sends everything held: the end of the agent's turn. The priority channel's buffers leave
     * first, as a priority packet sent on its own always left before the data channel's held GSO
     * run: a stream's first packet takes the priority channel only when nothing of its stream is
     * in flight, so the frames after it, on the data channel, must not arrive before it.
     */
    void flushAll() {
        for (int i = 0; i < open; i++) {
            if (slots[i].priority) {
                leave(slots[i]);
            }
        }
        for (int i = 0; i < open; i++) {
            leave(slots[i]);
            slots[i].to = null;
        }
        open = 0;
    }

    /** Frames held now, over all peers; for tests. */
    int heldFrames() {
        int n = 0;
        for (int i = 0; i < open; i++) {
            n += slots[i].count;
        }
        return n;
    }

    private Slot find(WireAddress to, boolean priority) {
        for (int i = 0; i < open; i++) {
            Slot s = slots[i];
            if (s.priority == priority && (s.to == to || s.to.equals(to))) {
                return s;
            }
        }
        return null;
    }

    /** An empty slot for {@code to}: a free one, else the oldest open one leaves first. */
    private Slot take(WireAddress to, boolean priority) {
        if (open == SLOTS) {
            Slot oldest = slots[0];
            leave(oldest);
            release(oldest);
        }
        Slot s = slots[open];
        if (s == null) {
            s = new Slot(capacity);
            slots[open] = s;
        }
        open++;
        s.to = to;
        s.priority = priority;
        return s;
    }

    /** Puts an emptied slot back among the free ones; the open ones keep the order they were opened in. */
    private void release(Slot s) {
        int i = 0;
        while (slots[i] != s) {
            i++;
        }
        System.arraycopy(slots, i + 1, slots, i, open - 1 - i);
        open--;
        slots[open] = s;
        s.to = null;
    }

    /** Sends the slot's frames (bare if there is one) and empties it; the slot stays open. */
    private void leave(Slot s) {
        int count = s.count;
        if (count == 0) {
            return;
        }
        boolean sent;
        if (count == 1) {
            sent = sink.sendDatagram(s.to, s.bare, s.lengths[0], s.priority);
        } else {
            s.buffer.set(ValueLayout.JAVA_BYTE, 0, HeaderFlyweight.VERSION);
            s.buffer.set(ValueLayout.JAVA_BYTE, 1, (byte) HeaderFlyweight.TYPE_BUNDLE);
            s.buffer.set(SHORT, 2, (short) 0);
            s.buffer.set(INT, 4, count);
            sent = sink.sendDatagram(s.to, s.buffer, s.used, s.priority);
        }
        for (int i = 0; i < count; i++) {
            sink.frameSent(s.tags[i], s.lengths[i], sent, count > 1);
            s.tags[i] = null;
        }
        s.count = 0;
        s.used = BUNDLE_HEADER_LENGTH;
    }

    /** One peer's (and channel's) buffer. */
    private static final class Slot {
        final MemorySegment buffer;
        /** The buffer from the first frame on: a lone frame is sent from here, bare. */
        final MemorySegment bare;
        final Object[] tags;
        final int[] lengths;
        WireAddress to;
        boolean priority;
        int count;
        int used = BUNDLE_HEADER_LENGTH;

        Slot(int capacity) {
            buffer = Arena.ofAuto().allocate(capacity, 8);
            bare = buffer.asSlice(BUNDLE_HEADER_LENGTH + FRAME_PREFIX_LENGTH);
            int frames = capacity / (FRAME_PREFIX_LENGTH + HeaderFlyweight.HEADER_LENGTH) + 1;
            tags = new Object[frames];
            lengths = new int[frames];
        }
    }
}
