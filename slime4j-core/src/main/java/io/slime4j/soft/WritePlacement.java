package io.slime4j.soft;

import java.lang.foreign.MemorySegment;

/**
 * Where the wire may receive an RDMA-write payload straight from the socket: the answer of
 * {@link Responder#placement} and {@link Responder#predictNext}, which return this object (one
 * per queue pair, reused) saying what will be placed — {@link #segment()}, {@link #offset()} and
 * {@link #length()} — or null for "receive it whole". A placement is only offered for the next
 * packet in order that passes {@link RemoteAccess#checkWrite}, the same check the packet meets
 * again when it is executed. Progress agent thread only.
 */
final class WritePlacement {
    private MemorySegment segment;
    private long offset;
    private int length;
    /** The accepted packet: its region, PSN, message start, offset in the message, payload and message length. */
    private KeyTable.Entry entry;
    private int psn;
    private long base;
    private long messageOffset;
    private int payload;
    private int messageLength;
    /** The accepted packet's remote key and its message's remote start address, which a continuation repeats. */
    private long remoteKey;
    private long messageAddress;

    MemorySegment segment() { return segment; }
    long offset() { return offset; }
    int length() { return length; }

    /** Accepts the write {@code d}, whose target {@code access} has just checked, for placement. */
    WritePlacement accept(DataFrame d, int payloadLength, RemoteAccess access) {
        KeyTable.Entry e = access.target();
        entry = e;
        psn = d.psn();
        base = access.targetBase();
        messageOffset = d.messageOffset();
        payload = payloadLength;
        messageLength = d.messageLength();
        remoteKey = d.remoteKey();
        messageAddress = d.remoteAddress() - messageOffset;
        segment = e.segment;
        offset = base + messageOffset;
        length = payloadLength;
        return this;
    }

    /**
     * Right after {@link #accept}: the bytes from {@link #offset()} to the end of the message's
     * target. Like a prediction (see {@link #predictNext}) these belong to the write in progress,
     * undefined until it completes, and none of its packets covering them has been executed (the
     * accepted packet is the next in order) or, when nothing is held ahead of order, placed; so the
     * wire may receive datagrams that follow the accepted one there before it knows which they are.
     */
    long room() {
        return (long) messageLength - messageOffset;
    }

    /**
     * Whether {@code d}, with {@code payloadLength} bytes of payload, is the next packet of the
     * write accepted last, received right behind it ({@link #predictNext}'s place), and passes
     * {@link RemoteAccess#checkWrite} as that one did, without a look-up: the PSN after it, a WRITE
     * of the same message (remote key, message start, length) at the offset where the last one's
     * payload ended, lying inside the message, whose target was checked whole when the write's
     * first placed packet was accepted. The region must still be valid, as for a prediction. On
     * true the packet is accepted in its turn ({@link #acceptNext}). Progress agent thread only.
     */
    boolean continues(DataFrame d, int payloadLength) {
        KeyTable.Entry e = entry;
        long next = messageOffset + payload;
        return e != null && e.valid && e.segment.scope().isAlive() && payloadLength > 0
                && d.version() == HeaderFlyweight.VERSION
                && d.type() == HeaderFlyweight.TYPE_WRITE && d.psn() == psn + 1 && d.messageOffset() == next
                && d.messageLength() == messageLength && payloadLength <= messageLength - next
                && d.remoteKey() == remoteKey && d.remoteAddress() - next == messageAddress;
    }

    /** Accepts the packet {@link #continues} said yes to, as {@link #accept} would. */
    void acceptNext(int payloadLength) {
        psn++;
        messageOffset += payload;
        payload = payloadLength;
        offset = base + messageOffset;
        length = payloadLength;
    }

    /**
     * After the packet accepted last was executed: where the next packet of the same write will
     * go, so that the wire may receive the next datagram there without looking at its header
     * first. The place is the message's next {@code MTU} bytes (the sender's MTU: the size of this
     * non-last packet), inside the message's target, whose bytes are undefined until the write
     * completes, so a datagram that turns out to be another one does no harm there: the packet
     * that covers those bytes has been neither executed (nothing was executed since the placed
     * packet) nor placed ahead of order (nothing is held), so it will still write them. Null at
     * the end of the message, if anything else was executed since ({@code expectedPsn} moved on
     * further), while packets are held ahead of order, or if the region was deregistered.
     */
    WritePlacement predictNext(int expectedPsn, boolean holes) {
        KeyTable.Entry e = entry;
        if (e == null || expectedPsn != psn + 1 || holes || !e.valid || !e.segment.scope().isAlive()) {
            return null;
        }
        long next = messageOffset + payload;
        long remaining = messageLength - next;
        if (remaining <= 0) {
            return null;
        }
        segment = e.segment;
        offset = base + next;
        length = (int) Math.min(remaining, payload);
        return this;
    }
}
