package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.before;

/**
 * The receiving side of one reliable stream: the next PSN expected (the cumulative ACK), and
 * which PSNs beyond it have arrived (a bitmap over the window), from which the SACK bitmap is
 * written. It says where a packet falls; what a packet recorded ahead of order means is kept by
 * the {@link ReorderBuffer}. Progress agent thread only.
 */
final class InboundStream {

    /** Where an arriving PSN falls. */
    enum Arrival {
        /** The PSN expected next. */
        IN_ORDER,
        /** Beyond the expected PSN, inside the window, not seen before. */
        AHEAD,
        /** Already received (before the expected PSN, or recorded ahead). */
        DUPLICATE,
        /** Too far ahead: beyond the window. */
        OUT_OF_WINDOW
    }

    private final int windowSize;
    private final int mask;
    private final long[] received;
    private int expected;
    private int highestReceived;
    private int aheadCount;

    /** A window of {@code windowSize} PSNs (a power of two, at least 64). */
    InboundStream(int windowSize) {
        if (Integer.bitCount(windowSize) != 1 || windowSize < 64) {
            throw new IllegalArgumentException("window must be a power of two of at least 64: " + windowSize);
        }
        this.windowSize = windowSize;
        this.mask = windowSize - 1;
        this.received = new long[windowSize / 64];
    }

    /** Sets the first PSN expected from the peer. */
    void start(int psn) {
        expected = psn;
        highestReceived = psn;
    }

    /** The next PSN expected: the cumulative ACK. */
    int expectedPsn() {
        return expected;
    }

    int windowSize() {
        return windowSize;
    }

    /** Whether packets are held ahead of a hole. */
    boolean hasHoles() {
        return aheadCount > 0;
    }

    int aheadCount() {
        return aheadCount;
    }

    Arrival classify(int psn) {
        int d = psn - expected;
        if (d < 0) {
            return Arrival.DUPLICATE;
        }
        if (d >= windowSize) {
            return Arrival.OUT_OF_WINDOW;
        }
        if (d == 0) {
            return Arrival.IN_ORDER;
        }
        return isReceived(psn) ? Arrival.DUPLICATE : Arrival.AHEAD;
    }

    /** Records {@code psn} as arrived ahead of order; returns whether it opened a new hole before it. */
    boolean markAhead(int psn) {
        boolean newHole = !isReceived(psn - 1);
        set(psn, true);
        aheadCount++;
        if (before(highestReceived, psn)) {
            highestReceived = psn;
        }
        return newHole;
    }

    /** Forgets that {@code psn} arrived ahead (it is being executed, or was refused); false if it had not. */
    boolean forget(int psn) {
        if (isReceived(psn)) {
            set(psn, false);
            aheadCount--;
            return true;
        }
        return false;
    }

    /** Whether the expected PSN arrived ahead earlier and waits to be executed. */
    boolean nextIsHeld() {
        return aheadCount > 0 && isReceived(expected);
    }

    /** The expected PSN was executed. */
    void advance() {
        expected++;
    }

    boolean isReceived(int psn) {
        int i = psn & mask;
        return (received[i >>> 6] & (1L << i)) != 0;
    }

    private void set(int psn, boolean on) {
        int i = psn & mask;
        if (on) {
            received[i >>> 6] |= 1L << i;
        } else {
            received[i >>> 6] &= ~(1L << i);
        }
    }

    /**
     * Writes the SACK bitmap into {@code ack}: bit i says whether PSN {@code expected + 1 + i}
     * arrived. It covers everything received beyond the cumulative ACK (up to the window and
     * {@code maxBits}), so every delivery is reported however many holes there are. Returns the
     * number of bits.
     */
    int writeSack(AckFrame ack, int maxBits) {
        if (aheadCount == 0) {
            return 0;
        }
        int bits = Math.min(highestReceived - expected, Math.min(windowSize, maxBits));
        if (bits <= 0) {
            return 0;
        }
        int words = (bits + 63) >>> 6;
        int psn = expected + 1;
        for (int w = 0; w < words; w++) {
            long v = 0;
            int n = Math.min(64, bits - w * 64);
            for (int b = 0; b < n; b++, psn++) {
                if (isReceived(psn)) {
                    v |= 1L << b;
                }
            }
            ack.sackWord(w, v);
        }
        return bits;
    }
}
