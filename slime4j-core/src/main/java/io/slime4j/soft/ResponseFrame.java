package io.slime4j.soft;

import java.lang.foreign.MemorySegment;

/**
 * A read or atomic response (READ_RESP, ATOMIC_RESP) read and written by the names of its fields:
 * the requester's send sequence number it answers, the payload's offset in the read, the read's
 * whole length, the atomic's old value, and, with {@link #F_ERROR}, the error status instead of
 * data.
 */
final class ResponseFrame extends HeaderFlyweight {

    @Override
    ResponseFrame wrap(MemorySegment segment) {
        super.wrap(segment);
        return this;
    }

    /** The send sequence number of the request this answers. */
    long ssn() { return rawLong(OPERAND1_OFFSET); }
    /** READ_RESP: the payload's offset in the read. */
    long readOffset() { return rawLong(ADDRESS_OFFSET); }
    /** READ_RESP: the read's whole length. */
    int readLength() { return rawInt(LENGTH_OFFSET); }
    /** ATOMIC_RESP: the target's value before the atomic. */
    long atomicValue() { return rawLong(OPERAND2_OFFSET); }
    /** With {@link #F_ERROR}: the ordinal of the remote error's completion status. */
    int errorStatus() { return rawInt(IMMEDIATE_OFFSET); }
    boolean isError() { return (flags() & F_ERROR) != 0; }

    ResponseFrame ssn(long v) { rawLong(OPERAND1_OFFSET, v); return this; }
    ResponseFrame readOffset(long v) { rawLong(ADDRESS_OFFSET, v); return this; }
    ResponseFrame readLength(int v) { rawInt(LENGTH_OFFSET, v); return this; }
    ResponseFrame atomicValue(long v) { rawLong(OPERAND2_OFFSET, v); return this; }
    ResponseFrame errorStatus(int v) { rawInt(IMMEDIATE_OFFSET, v); return this; }
}
