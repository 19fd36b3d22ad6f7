package io.slime4j.soft;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Flyweight over the fixed 64-byte little-endian header every soft-RC packet starts with.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |    version    |     type      |             flags             |  0
 *  +---------------+---------------+-------------------------------+
 *  |                 destination queue pair number                 |  4
 *  +---------------------------------------------------------------+
 *  |                  connection token (64 bits)                   |  8
 *  +---------------------------------------------------------------+
 *  |                  packet sequence number (PSN)                 | 16
 *  +---------------------------------------------------------------+
 *  |      piggy-backed ACK: next PSN expected (valid if F_ACK)     | 20
 *  +---------------------------------------------------------------+
 *  |   address (64): remote address of this payload (WRITE),       | 24
 *  |   target (READ_REQ, ATOMIC_REQ), offset in read (READ_RESP)   |
 *  +---------------------------------------------------------------+
 *  |   remote key (64 bits); in an ACK: the receive window, bytes  | 32
 *  +---------------------------------------------------------------+
 *  |     immediate data, or the status of an error response        | 40
 *  +---------------------------------------------------------------+
 *  |  length: whole message (SEND, WRITE), read length (READ_REQ), | 44
 *  |  SACK bitmap length in bits (ACK)                             |
 *  +---------------------------------------------------------------+
 *  |  operand 1 (64): payload offset in its message (SEND, WRITE), | 48
 *  |  requester's send sequence number (READ_REQ/RESP, ATOMIC_*)   |
 *  +---------------------------------------------------------------+
 *  |  operand 2 (64): compare/add (ATOMIC_REQ), old value          | 56
 *  |  (ATOMIC_RESP), syndrome (ACK), message sequence number of    |
 *  |  a receive-consuming message (SEND, WRITE)                    |
 *  +---------------------------------------------------------------+
 *  |  payload (data packets) or SACK bitmap (ACK): 64-bit words,   | 64
 *  |  bit i set = PSN (ACK + 1 + i) was received                   |
 * </pre>
 *
 * ATOMIC_REQ carries its swap value in the first 8 payload bytes. The message sequence number
 * (MSN) counts the messages that consume a receive (SEND, SEND_WITH_IMM, RDMA_WRITE_WITH_IMM), so
 * that a SEND packet arriving out of order still finds the receive it lands in. Types below {@link #TYPE_ACK}
 * consume a PSN of the sender's reliable stream; ACKs do not.
 *
 * <p>This class reads the fields every packet has; the slots from offset 24 on mean different
 * things per kind of packet and are read through the typed frames over the same bytes:
 * {@link DataFrame} (requests), {@link AckFrame} (ACK/NAK) and {@link ResponseFrame} (read and
 * atomic responses), so that a call site says {@code ack.window()}, never "the rkey slot".
 */
class HeaderFlyweight {
    static final byte VERSION = 1;
    static final int HEADER_LENGTH = 64;

    static final int VERSION_OFFSET = 0;
    static final int TYPE_OFFSET = 1;
    static final int FLAGS_OFFSET = 2;
    static final int DEST_QPN_OFFSET = 4;
    static final int TOKEN_OFFSET = 8;
    static final int PSN_OFFSET = 16;
    static final int ACK_PSN_OFFSET = 20;
    static final int ADDRESS_OFFSET = 24;
    static final int RKEY_OFFSET = 32;
    static final int IMMEDIATE_OFFSET = 40;
    static final int LENGTH_OFFSET = 44;
    static final int OPERAND1_OFFSET = 48;
    static final int OPERAND2_OFFSET = 56;

    static final int TYPE_SEND = 1;
    static final int TYPE_WRITE = 2;
    static final int TYPE_READ_REQ = 3;
    static final int TYPE_ATOMIC_REQ = 4;
    static final int TYPE_READ_RESP = 5;
    static final int TYPE_ATOMIC_RESP = 6;
    /** Explicit ACK or NAK: no PSN of its own. */
    static final int TYPE_ACK = 7;
    static final int TYPE_MAX = TYPE_ACK;
    /**
     * Not a packet but a bundle of coalesced packets (frames), each with its own header
     * ({@link Coalescer}, {@link BundleSplitter}); above {@link #TYPE_MAX}, so a bundle inside a
     * bundle is not well formed.
     */
    static final int TYPE_BUNDLE = 8;

    /** First packet of a message. */
    static final int F_FIRST = 1;
    /** Last packet of a message. */
    static final int F_LAST = 1 << 1;
    /** The message carries immediate data (in its last packet). */
    static final int F_IMM = 1 << 2;
    /** {@link #ACK_PSN_OFFSET} holds a valid piggy-backed cumulative ACK. */
    static final int F_ACK = 1 << 3;
    /** Atomic request: compare-and-swap (else fetch-and-add). */
    static final int F_CMP_SWAP = 1 << 4;
    /** A read or atomic of the sender precedes this packet: do not place it ahead of order. */
    static final int F_ORDERED = 1 << 5;
    /** Response carries an error status in {@link #IMMEDIATE_OFFSET} instead of data. */
    static final int F_ERROR = 1 << 6;

    /** ACK flag: the receiver dropped out-of-order packets; resend everything not SACKed. */
    static final int F_GO_BACK = 1 << 7;
    /**
     * Data flag: acknowledge at once rather than after the delayed-ACK time (the last packet of a
     * write or send, as the soft-RoCE driver's AckReq: its request completes on that ACK).
     */
    static final int F_ACK_REQ = 1 << 8;
    /**
     * Data flag: the packet is a retransmission. A run of resent packets need not hold consecutive
     * PSNs, so a receiver never drops a coalesced receive unread on the strength of its first packet
     * when that one was resent (docs/WIRE.md, "Duplicates dropped unread").
     */
    static final int F_RESENT = 1 << 9;

    /** ACK syndromes. */
    static final int SYNDROME_ACK = 0;
    static final int SYNDROME_RNR_NAK = 1;
    static final int SYNDROME_NAK_REMOTE_ACCESS = 2;
    static final int SYNDROME_NAK_INVALID_REQUEST = 3;
    static final int SYNDROME_NAK_REMOTE_OPERATION = 4;

    /** Most SACK bits an ACK carries (beyond the cumulative ACK). */
    static final int MAX_SACK_BITS = 16384;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private MemorySegment segment;
    /** Where the header starts in {@link #segment}: 0, except for a header read in place in a receive buffer ({@link #wrapAt}). */
    private long base;

    /** Wraps {@code segment}; returns this. */
    HeaderFlyweight wrap(MemorySegment segment) {
        this.segment = segment;
        this.base = 0;
        return this;
    }

    /**
     * Wraps the header that starts at {@code base} in {@code segment} (one datagram of a coalesced
     * receive, read where it lies: no slice per packet); returns this. Reads only: {@link #segment()}
     * and the writers assume a header at 0.
     */
    HeaderFlyweight wrapAt(MemorySegment segment, long base) {
        this.segment = segment;
        this.base = base;
        return this;
    }

    MemorySegment segment() {
        return segment;
    }

    int version() { return segment.get(ValueLayout.JAVA_BYTE, base + VERSION_OFFSET) & 0xFF; }
    int type() { return segment.get(ValueLayout.JAVA_BYTE, base + TYPE_OFFSET) & 0xFF; }
    int flags() { return segment.get(SHORT, base + FLAGS_OFFSET) & 0xFFFF; }
    int destQpn() { return segment.get(INT, base + DEST_QPN_OFFSET); }
    long token() { return segment.get(LONG, base + TOKEN_OFFSET); }
    int psn() { return segment.get(INT, base + PSN_OFFSET); }
    int ackPsn() { return segment.get(INT, base + ACK_PSN_OFFSET); }

    /** A shared slot, for the typed frames only. */
    final int rawInt(int offset) { return segment.get(INT, base + offset); }
    final long rawLong(int offset) { return segment.get(LONG, base + offset); }
    final void rawInt(int offset, int v) { segment.set(INT, offset, v); }
    final void rawLong(int offset, long v) { segment.set(LONG, offset, v); }

    /** Writes version and type, clears flags, and sets the routing fields. */
    HeaderFlyweight start(int type, int flags, int destQpn, long token, int psn) {
        for (int off = 0; off < HEADER_LENGTH; off += 8) {
            segment.set(LONG, off, 0L); // no field of an earlier packet may leak into this one
        }
        segment.set(ValueLayout.JAVA_BYTE, VERSION_OFFSET, VERSION);
        segment.set(ValueLayout.JAVA_BYTE, TYPE_OFFSET, (byte) type);
        segment.set(SHORT, FLAGS_OFFSET, (short) flags);
        segment.set(INT, DEST_QPN_OFFSET, destQpn);
        segment.set(LONG, TOKEN_OFFSET, token);
        segment.set(INT, PSN_OFFSET, psn);
        return this;
    }

    HeaderFlyweight flags(int v) { segment.set(SHORT, FLAGS_OFFSET, (short) v); return this; }
    HeaderFlyweight ackPsn(int v) { segment.set(INT, ACK_PSN_OFFSET, v); return this; }
    /** Reads a 32-bit little-endian value at {@code offset} from the start of the packet. */
    int intAt(long offset) { return segment.get(INT, base + offset); }
    void intAt(long offset, int v) { segment.set(INT, offset, v); }
    long longAt(long offset) { return segment.get(LONG, base + offset); }
    void longAt(long offset, long v) { segment.set(LONG, offset, v); }

    /** Whether a packet of {@code length} bytes with this header is well formed (version, type, size). */
    boolean isWellFormed(int length) {
        if (length < HEADER_LENGTH || version() != VERSION) {
            return false;
        }
        int type = type();
        if (type < TYPE_SEND || type > TYPE_MAX) {
            return false;
        }
        if (type == TYPE_ACK) {
            int bits = rawInt(LENGTH_OFFSET);
            return bits >= 0 && bits <= MAX_SACK_BITS && length >= HEADER_LENGTH + sackBytes(bits);
        }
        if (type == TYPE_ATOMIC_REQ) {
            return length >= HEADER_LENGTH + 8;
        }
        return true;
    }

    /** Bytes of a SACK bitmap of {@code bits} bits. */
    static int sackBytes(int bits) {
        return ((bits + 63) >>> 6) * 8;
    }

    /** Wraparound-safe "a is before b" for 32-bit sequence numbers. */
    static boolean before(int a, int b) {
        return a - b < 0;
    }
}
