package io.slime4j.endpoint;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The endpoint's own wire formats: the immediates it puts on its internal queue pairs and the
 * 32-byte rendezvous meta message.
 *
 * <p><b>Which queue pair carries what.</b> The immediate of a request on an <em>io</em> queue pair
 * is the user's, all 32 bits: only {@code writeWithImm} posts RDMA_WRITE_WITH_IMM there. The two
 * message queue pairs carry only endpoint traffic, so their immediates are endpoint-encoded:
 *
 * <pre>
 * meta queue pair, SEND_WITH_IMM:      31   28 27                                  0
 *                                     | type  | value                              |
 *     type 1 META:   value 0, payload = the 32-byte meta message below
 *     type 2 CREDIT: value = imm-recv credits returned, no payload
 *
 * data queue pair, RDMA_WRITE_WITH_IMM: 31 30 29            16 15                  0
 *                                      |code| recv op tag    | recv slot index     |
 *     code 0 DATA: the message is in place; 1 CANCELLED: the matching send was cancelled;
 *     2 TOO_LONG: the send was longer than the receive (nothing written)
 * </pre>
 *
 * <pre>
 * meta message (little endian):  0 magic "SLM1" | 4 token (the data immediate, code 0)
 *                                8 address (u64) | 16 remote key (u64) | 24 length (u64)
 * </pre>
 */
final class Wire32 {
    static final int META_TYPE = 1;
    static final int CREDIT_TYPE = 2;
    /** A recv was cancelled: the payload is the 32-byte meta message it sent, re-sent as is. */
    static final int CANCEL_TYPE = 3;
    static final int MAX_CREDIT = (1 << 28) - 1;

    static final int CODE_DATA = 0;
    static final int CODE_CANCELLED = 1;
    static final int CODE_TOO_LONG = 2;
    static final int MAX_MESSAGE_SLOTS = 1 << 16;
    static final int RECV_TAG_MASK = (1 << 14) - 1;

    static final int META_BYTES = 32;
    static final int META_MAGIC = 0x314D4C53; // "SLM1" little endian
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Wire32() {}

    static int metaImm(int type, int value) {
        return (type << 28) | (value & MAX_CREDIT);
    }

    static int metaType(int imm) {
        return imm >>> 28;
    }

    static int metaValue(int imm) {
        return imm & MAX_CREDIT;
    }

    /** The data-path token of a receive: code 0, the op's tag and the slot index. */
    static int token(int recvSlot, long recvOpSeq) {
        return (int) ((recvOpSeq & RECV_TAG_MASK) << 16) | recvSlot;
    }

    static int withCode(int token, int code) {
        return (token & 0x3FFF_FFFF) | (code << 30);
    }

    static int code(int imm) {
        return imm >>> 30;
    }

    static int tokenSlot(int imm) {
        return imm & 0xFFFF;
    }

    static boolean tokenMatches(int imm, long recvOpSeq) {
        return ((imm >>> 16) & RECV_TAG_MASK) == (int) (recvOpSeq & RECV_TAG_MASK);
    }

    /** A rendezvous meta message as a value: where the sender must write, and how much fits. */
    record Meta(int token, long address, long remoteKey, long length) {}

    static void writeMeta(MemorySegment at, Meta meta) {
        at.set(INT, 0, META_MAGIC);
        at.set(INT, 4, meta.token());
        at.set(LONG, 8, meta.address());
        at.set(LONG, 16, meta.remoteKey());
        at.set(LONG, 24, meta.length());
    }

    /** Reads a meta message, or returns null when the magic is wrong. */
    static Meta readMeta(MemorySegment at) {
        if (at.get(INT, 0) != META_MAGIC) {
            return null;
        }
        return new Meta(at.get(INT, 4), at.get(LONG, 8), at.get(LONG, 16), at.get(LONG, 24));
    }
}
