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
 *     type 3 CANCEL: value 0, payload = the cancelled recv's meta message, as sent
 *     type 4 LANE_RESET: value = lane | epoch &lt;&lt; 8, payload = the lane message below (the
 *                        sender's fresh queue pair for that lane)
 *     type 5 LANE_READY: the same, the answer: the peer's fresh queue pair, connected
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
 * lane message (little endian):  0 magic "SLL1" | 4 qpn | 8 psn | 12 imm posted | 16 token (u64) | 24 0
 *                                (imm posted: write-with-imm requests the sender posted on the lane's
 *                                old queue pair, counted once that pair was in ERR: {@link ImmRefunds})
 * </pre>
 */
final class Wire32 {
    static final int META_TYPE = 1;
    static final int CREDIT_TYPE = 2;
    /** A recv was cancelled: the payload is the 32-byte meta message it sent, re-sent as is. */
    static final int CANCEL_TYPE = 3;
    static final int LANE_RESET_TYPE = 4;
    static final int LANE_READY_TYPE = 5;
    static final int MAX_CREDIT = (1 << 28) - 1;
    static final int LANE_MAGIC = 0x314C4C53; // "SLL1" little endian
    /** Epochs of a lane travel modulo 2^20. */
    static final int EPOCH_MASK = (1 << 20) - 1;

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

    /** The immediate value of a lane message: the lane and the epoch it opens. */
    static int laneValue(int lane, int epoch) {
        return (lane & 0xFF) | ((epoch & EPOCH_MASK) << 8);
    }

    static int laneOf(int value) {
        return value & 0xFF;
    }

    static int epochOf(int value) {
        return (value >>> 8) & EPOCH_MASK;
    }

    /**
     * Writes a lane message: a fresh queue pair's number, first packet sequence number and token,
     * and how many write-with-imm requests the sender posted on the lane's old queue pair.
     */
    static void writeLane(MemorySegment at, int qpn, int psn, long token, int immPosted) {
        at.set(INT, 0, LANE_MAGIC);
        at.set(INT, 4, qpn);
        at.set(INT, 8, psn);
        at.set(INT, 12, immPosted);
        at.set(LONG, 16, token);
        at.set(LONG, 24, 0);
    }

    /** A lane message as a value. */
    record Lane(int qpn, int psn, long token, int immPosted) {
        Lane(int qpn, int psn, long token) {
            this(qpn, psn, token, 0);
        }
    }

    /** Reads a lane message, or returns null when the magic is wrong. */
    static Lane readLane(MemorySegment at) {
        if (at.get(INT, 0) != LANE_MAGIC) {
            return null;
        }
        return new Lane(at.get(INT, 4), at.get(INT, 8), at.get(LONG, 16), at.get(INT, 12));
    }

    /** Reads a meta message, or returns null when the magic is wrong. */
    static Meta readMeta(MemorySegment at) {
        if (at.get(INT, 0) != META_MAGIC) {
            return null;
        }
        return new Meta(at.get(INT, 4), at.get(LONG, 8), at.get(LONG, 16), at.get(LONG, 24));
    }
}
