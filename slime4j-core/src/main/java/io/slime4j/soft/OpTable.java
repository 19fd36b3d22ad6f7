package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.Opcode;

/**
 * What each packet type does, as data: one row of flags per type, and the packet type each verbs
 * opcode is sent as. The requester and the responder ask this table instead of testing types
 * one by one, so a new kind of packet is one new row.
 *
 * <pre>
 *  type        REQUEST RESPONSE SEGMENTED PLACE_AHEAD TO_RECEIVE BY_KEY  access
 *  SEND           x                x          x           x
 *  WRITE          x                x          x                    x    REMOTE_WRITE
 *  READ_REQ       x                                                x    REMOTE_READ
 *  ATOMIC_REQ     x                                                x    REMOTE_ATOMIC
 *  READ_RESP              x        x          x
 *  ATOMIC_RESP            x                   x
 *  ACK            (not part of the stream: no PSN of its own)
 * </pre>
 */
final class OpTable {
    /** A request of the peer, executed by the responder. */
    static final int REQUEST = 1;
    /** A response to one of our own requests. */
    static final int RESPONSE = 1 << 1;
    /** Carries message data cut into MTU-sized packets. */
    static final int SEGMENTED = 1 << 2;
    /** May be placed (or delivered) before the packets ahead of it arrived. */
    static final int PLACE_AHEAD = 1 << 3;
    /** Lands in a posted receive, found by message sequence number. */
    static final int TO_RECEIVE = 1 << 4;
    /** Addresses registered memory of the receiver by remote key. */
    static final int BY_KEY = 1 << 5;

    private static final int[] FLAGS = new int[TYPE_MAX + 1];
    private static final int[] ACCESS = new int[TYPE_MAX + 1];
    private static final int[] PACKET_TYPE = new int[Opcode.values().length];

    static {
        FLAGS[TYPE_SEND] = REQUEST | SEGMENTED | PLACE_AHEAD | TO_RECEIVE;
        FLAGS[TYPE_WRITE] = REQUEST | SEGMENTED | PLACE_AHEAD | BY_KEY;
        FLAGS[TYPE_READ_REQ] = REQUEST | BY_KEY;
        FLAGS[TYPE_ATOMIC_REQ] = REQUEST | BY_KEY;
        FLAGS[TYPE_READ_RESP] = RESPONSE | SEGMENTED | PLACE_AHEAD;
        FLAGS[TYPE_ATOMIC_RESP] = RESPONSE | PLACE_AHEAD;
        ACCESS[TYPE_WRITE] = AccessFlags.REMOTE_WRITE;
        ACCESS[TYPE_READ_REQ] = AccessFlags.REMOTE_READ;
        ACCESS[TYPE_ATOMIC_REQ] = AccessFlags.REMOTE_ATOMIC;
        PACKET_TYPE[Opcode.SEND.ordinal()] = TYPE_SEND;
        PACKET_TYPE[Opcode.SEND_WITH_IMM.ordinal()] = TYPE_SEND;
        PACKET_TYPE[Opcode.RDMA_WRITE.ordinal()] = TYPE_WRITE;
        PACKET_TYPE[Opcode.RDMA_WRITE_WITH_IMM.ordinal()] = TYPE_WRITE;
        PACKET_TYPE[Opcode.RDMA_READ.ordinal()] = TYPE_READ_REQ;
        PACKET_TYPE[Opcode.ATOMIC_FETCH_ADD.ordinal()] = TYPE_ATOMIC_REQ;
        PACKET_TYPE[Opcode.ATOMIC_CMP_SWAP.ordinal()] = TYPE_ATOMIC_REQ;
    }

    private OpTable() {
    }

    /** Whether packets of {@code type} (any byte value) have every flag of {@code flags}. */
    static boolean has(int type, int flags) {
        return type >= 0 && type < FLAGS.length && (FLAGS[type] & flags) == flags;
    }

    /** The access right a packet of {@code type} needs on the region its key names (0: none). */
    static int access(int type) {
        return ACCESS[type];
    }

    /** The packet type a request of {@code opcode} is sent as. */
    static int packetType(Opcode opcode) {
        return PACKET_TYPE[opcode.ordinal()];
    }
}
