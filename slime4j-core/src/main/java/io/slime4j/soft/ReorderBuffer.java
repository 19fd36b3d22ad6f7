package io.slime4j.soft;

/**
 * What a packet that arrived ahead of order left to do once its turn comes. Data that can be
 * placed early is placed on arrival; this keeps, per PSN of the window, only what must still
 * happen in order: nothing ({@link #PLACED}), or an action ({@link #ACTION}) — deliver a
 * message's completion (with its immediate), execute a read or atomic request, or report an
 * access error found on arrival. Parallel arrays, no objects per packet. Progress agent thread only.
 */
final class ReorderBuffer {
    static final byte NONE = 0;
    static final byte PLACED = 1;
    static final byte ACTION = 2;

    private final int mask;
    private final byte[] state;
    private final byte[] type;
    private final short[] flags;
    private final long[] address;
    private final long[] key;
    private final int[] length;
    private final int[] immediate;
    private final long[] ssn;
    private final long[] compareAdd;
    private final long[] swap;
    private final Verdict[] error;

    ReorderBuffer(int windowSize) {
        mask = windowSize - 1;
        state = new byte[windowSize];
        type = new byte[windowSize];
        flags = new short[windowSize];
        address = new long[windowSize];
        key = new long[windowSize];
        length = new int[windowSize];
        immediate = new int[windowSize];
        ssn = new long[windowSize];
        compareAdd = new long[windowSize];
        swap = new long[windowSize];
        error = new Verdict[windowSize];
    }

    /** The packet of {@code psn} was placed; nothing is left to do in order. */
    void placed(int psn, int packetType, int packetFlags) {
        int i = set(psn, PLACED, packetType, packetFlags);
        error[i] = null;
    }

    /** The packet of {@code psn} completes a message in order (a SEND's last packet, a WRITE with immediate). */
    void completion(int psn, int packetType, int packetFlags, int messageLength, int imm) {
        int i = set(psn, ACTION, packetType, packetFlags);
        error[i] = null;
        length[i] = messageLength;
        immediate[i] = imm;
    }

    /** The read or atomic request {@code d} executes in order. */
    void request(DataFrame d) {
        int i = set(d.psn(), ACTION, d.type(), d.flags());
        error[i] = null;
        address[i] = d.remoteAddress();
        key[i] = d.remoteKey();
        length[i] = d.messageLength();
        ssn[i] = d.ssn();
        compareAdd[i] = d.compareAdd();
        swap[i] = d.type() == HeaderFlyweight.TYPE_ATOMIC_REQ ? d.swap() : 0;
    }

    /** The packet of {@code psn} is refused with {@code verdict} when its turn comes. */
    void refusal(int psn, int packetType, int packetFlags, Verdict verdict) {
        int i = set(psn, ACTION, packetType, packetFlags);
        error[i] = verdict;
    }

    void clear(int psn) {
        state[psn & mask] = NONE;
    }

    private int set(int psn, byte s, int packetType, int packetFlags) {
        int i = psn & mask;
        state[i] = s;
        type[i] = (byte) packetType;
        flags[i] = (short) packetFlags;
        return i;
    }

    byte state(int psn) { return state[psn & mask]; }
    int type(int psn) { return type[psn & mask]; }
    int flags(int psn) { return flags[psn & mask]; }
    long address(int psn) { return address[psn & mask]; }
    long key(int psn) { return key[psn & mask]; }
    int length(int psn) { return length[psn & mask]; }
    int immediate(int psn) { return immediate[psn & mask]; }
    long ssn(int psn) { return ssn[psn & mask]; }
    long compareAdd(int psn) { return compareAdd[psn & mask]; }
    long swap(int psn) { return swap[psn & mask]; }
    /** The refusal recorded for {@code psn}, or null. */
    Verdict error(int psn) { return error[psn & mask]; }
}
