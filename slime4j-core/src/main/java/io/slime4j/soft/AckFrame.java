package io.slime4j.soft;

import java.lang.foreign.MemorySegment;

/**
 * An explicit ACK or NAK (type {@link HeaderFlyweight#TYPE_ACK}) read and written by the names of
 * its fields: the cumulative ACK ({@link #ackPsn()}), the PSN a NAK refers to ({@link #psn()}),
 * the advertised receive window in bytes, the syndrome, and a SACK bitmap of {@link #sackBits()}
 * bits after the header (bit i set: PSN {@code ackPsn + 1 + i} arrived).
 */
final class AckFrame extends HeaderFlyweight {

    @Override
    AckFrame wrap(MemorySegment segment) {
        super.wrap(segment);
        return this;
    }

    /** The receive window the sender of this ACK advertises, in bytes. */
    long window() { return rawLong(RKEY_OFFSET); }
    /** One of the {@code SYNDROME_*} constants. */
    int syndrome() { return (int) rawLong(OPERAND2_OFFSET); }
    /** Bits of the SACK bitmap that follows the header. */
    int sackBits() { return rawInt(LENGTH_OFFSET); }
    /** Word {@code i} of the SACK bitmap. */
    long sackWord(int i) { return longAt(HEADER_LENGTH + (long) i * 8); }
    /** The receiver dropped out-of-order packets: resend everything not SACKed. */
    boolean goBack() { return (flags() & F_GO_BACK) != 0; }

    AckFrame window(long v) { rawLong(RKEY_OFFSET, v); return this; }
    AckFrame syndrome(int v) { rawLong(OPERAND2_OFFSET, v); return this; }
    AckFrame sackBits(int v) { rawInt(LENGTH_OFFSET, v); return this; }
    AckFrame sackWord(int i, long v) { longAt(HEADER_LENGTH + (long) i * 8, v); return this; }
}
