package io.slime4j.endpoint;

/**
 * The 64-bit work-request id of every request the endpoint posts: what the dispatcher needs to
 * route a completion without any lookup table.
 *
 * <pre>
 *  63    60 59      52 51                 32 31        20 19                 0
 * +--------+----------+---------------------+------------+--------------------+
 * |  kind  | qp index |  slot or window     |  sub index |  op tag            |
 * |  4 b   |   8 b    |  entry, 20 b        |  12 b      |  20 b              |
 * +--------+----------+---------------------+------------+--------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>kind</b>: which path posted it ({@link #IO}, {@link #MSG_DATA}, ...); 0 is never used,
 *       so a zeroed id is recognisably foreign.</li>
 *   <li><b>qp index</b>: the endpoint's index of the queue pair (io queue pairs 0..qps-1).</li>
 *   <li><b>slot</b>: the index of the pooled slot whose current lease owns the request, or the
 *       entry of a receive window.</li>
 *   <li><b>sub</b>: the request's position in its slot (a slot carries up to
 *       {@link EndpointConfig#requestsPerSlot()} requests).</li>
 *   <li><b>op tag</b>: the low 20 bits of the posting op's sequence number. Not used for routing:
 *       the dispatcher compares it with the slot's current tenant and counts a mismatch as an
 *       aliased completion (the ABA hazard of seed 001). It is a detector, not a mechanism: with
 *       invariant I2 in place it never fires.</li>
 * </ul>
 */
final class WrIds {
    /** One-sided read / write / write-with-imm request of an io slot. */
    static final int IO = 1;
    /** Message data (RDMA_WRITE_WITH_IMM) of a send slot, on the data queue pair. */
    static final int MSG_DATA = 2;
    /** Rendezvous meta message (SEND_WITH_IMM) of a recv slot, on the meta queue pair. */
    static final int META_SEND = 3;
    /** Credit return (zero-length SEND_WITH_IMM) on the meta queue pair; owns no slot. */
    static final int CREDIT_SEND = 4;
    /** Receive of the meta window (meta queue pair). */
    static final int META_WINDOW = 5;
    /** Receive of the message data window (data queue pair). */
    static final int DATA_WINDOW = 6;
    /** Receive of an imm-recv window (one per io queue pair). */
    static final int IMM_WINDOW = 7;
    /** A cancelled recv's notice (SEND_WITH_IMM of its meta buffer again) on the meta queue pair. */
    static final int CANCEL_SEND = 8;
    /** A keepalive probe (zero-length RDMA write) on the meta queue pair; owns no slot ({@link Keepalive}). */
    static final int KEEPALIVE = 9;
    /** A lane-recovery message (SEND_WITH_IMM) on the meta queue pair; owns no slot ({@link LaneRecovery}). */
    static final int LANE_SEND = 10;
    /** An eager credit return (zero-length SEND_WITH_IMM) on the meta queue pair; owns no slot ({@link EagerCredits}). */
    static final int EAGER_CREDIT_SEND = 11;
    /** A rendezvous send's notice (zero-length SEND_WITH_IMM) on the data queue pair, of a send slot ({@link EagerPath}). */
    static final int NOTICE_SEND = 12;

    static final int MAX_QPS = 1 << 8;
    static final int MAX_SLOTS = 1 << 20;
    static final int MAX_SUBS = 1 << 12;
    static final int TAG_MASK = (1 << 20) - 1;

    private WrIds() {}

    static long encode(int kind, int qpIndex, int slot, int sub, long opSeq) {
        return ((long) kind << 60) | ((long) qpIndex << 52) | ((long) slot << 32) | ((long) sub << 20)
                | (opSeq & TAG_MASK);
    }

    static int kind(long wrId) {
        return (int) (wrId >>> 60);
    }

    static int qp(long wrId) {
        return (int) (wrId >>> 52) & 0xFF;
    }

    static int slot(long wrId) {
        return (int) (wrId >>> 32) & (MAX_SLOTS - 1);
    }

    static int sub(long wrId) {
        return (int) (wrId >>> 20) & (MAX_SUBS - 1);
    }

    static int tag(long wrId) {
        return (int) wrId & TAG_MASK;
    }

    /** Whether {@code wrId} was posted for the op with sequence number {@code opSeq}. */
    static boolean tagMatches(long wrId, long opSeq) {
        return tag(wrId) == (int) (opSeq & TAG_MASK);
    }

    static String toString(long wrId) {
        return "wrId{kind=" + kind(wrId) + ", qp=" + qp(wrId) + ", slot=" + slot(wrId) + ", sub=" + sub(wrId)
                + ", tag=" + tag(wrId) + "}";
    }
}
