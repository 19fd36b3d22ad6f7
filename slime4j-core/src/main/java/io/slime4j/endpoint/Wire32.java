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
 *     type 6 EAGER_CREDIT: value = eager credits returned ({@link EagerCredits}), no payload
 *
 * data queue pair, RDMA_WRITE_WITH_IMM: 31 30 29            16 15                  0
 *                                      |code| recv op tag    | recv slot index     |
 *     code 0 DATA: the message is in place; 1 CANCELLED: the matching send was cancelled;
 *     2 TOO_LONG: the send was longer than the receive (nothing written)
 *
 * data queue pair, SEND_WITH_IMM (eager, {@link EagerPath}): 31 30 29 28 27            0
 *                                                      | 3   |kind | message seq mod 2^28 |
 *     kind 0 EAGER_DATA: the message itself, in the payload (at most the eager threshold);
 *     1 EAGER_CANCELLED: the send was cancelled (no payload); 2 NOTICE: a rendezvous send is
 *     waiting for this message's meta (no payload)
 * </pre>
 *
 * <pre>
 * meta message (little endian):  0 magic "SLM2" | 4 token (the data immediate, code 0)
 *                                8 address (u64) | 16 remote key (u64) | 24 length (u32, the
 *                                recv's length capped at 2^31-1, the largest message) | 28 the
 *                                recv's message sequence number (u32: the k-th recv sends k)
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
    /** Eager credits returned: the value is how many ({@link EagerCredits}). */
    static final int EAGER_CREDIT_TYPE = 6;
    static final int MAX_CREDIT = (1 << 28) - 1;
    static final int LANE_MAGIC = 0x314C4C53; // "SLL1" little endian
    /** Epochs of a lane travel modulo 2^20. */
    static final int EPOCH_MASK = (1 << 20) - 1;

    static final int CODE_DATA = 0;
    static final int CODE_CANCELLED = 1;
    static final int CODE_TOO_LONG = 2;
    /** The data queue pair's eager code: a SEND into a bounce buffer, the message sequence number in the immediate. */
    static final int CODE_EAGER = 3;
    static final int EAGER_DATA = 0;
    static final int EAGER_CANCELLED = 1;
    static final int EAGER_NOTICE = 2;
    /** Message sequence numbers travel modulo 2^28 in eager immediates. */
    static final int SEQ_MASK = (1 << 28) - 1;
    static final int MAX_MESSAGE_SLOTS = 1 << 16;
    static final int RECV_TAG_MASK = (1 << 14) - 1;

    static final int META_BYTES = 32;
    static final int META_MAGIC = 0x324D4C53; // "SLM2" little endian
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

    /** The immediate of an eager SEND: code 3, its kind and the message sequence number. */
    static int eagerImm(int kind, int seq) {
        return (CODE_EAGER << 30) | (kind << 28) | (seq & SEQ_MASK);
    }

    static int eagerKind(int imm) {
        return (imm >>> 28) & 3;
    }

    static int eagerSeq(int imm) {
        return imm & SEQ_MASK;
    }

    /**
     * A rendezvous meta message as a value: where the sender must write, how much fits, and which
     * message (the recv's sequence number) it is for.
     */
    record Meta(int token, long address, long remoteKey, long length, int seq) {}

    static void writeMeta(MemorySegment at, Meta meta) {
        writeMeta(at, 0, meta.token(), meta.address(), meta.remoteKey(), meta.length(), meta.seq());
    }

    /** Writes a meta message at {@code offset} of {@code segment} from its fields (no record, no slice). */
    static void writeMeta(MemorySegment segment, long offset, int token, long address, long remoteKey, long length,
            int seq) {
        segment.set(INT, offset, META_MAGIC);
        segment.set(INT, offset + 4, token);
        segment.set(LONG, offset + 8, address);
        segment.set(LONG, offset + 16, remoteKey);
        segment.set(INT, offset + 24, (int) Math.min(length, Integer.MAX_VALUE));
        segment.set(INT, offset + 28, seq);
    }

    /** Sets the message sequence number of a meta message already written. */
    static void writeMetaSeq(MemorySegment at, int seq) {
        at.set(INT, 28, seq);
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
        return new Meta(at.get(INT, 4), at.get(LONG, 8), at.get(LONG, 16), at.get(INT, 24) & 0xFFFF_FFFFL,
                at.get(INT, 28));
    }
}
