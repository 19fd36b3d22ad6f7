package io.slime4j.soft;

import java.lang.foreign.MemorySegment;

/**
 * A request packet of the reliable stream (SEND, WRITE, READ_REQ, ATOMIC_REQ) read and written
 * by the names of its fields: the header's shared slots ({@link HeaderFlyweight}) mean, for a
 * request, the remote address, the remote key, the immediate, the message length, the payload's
 * offset in its message (or the requester's send sequence number) and the message sequence
 * number (or the compare/add operand). Same bytes on the wire as before: only the names differ.
 */
final class DataFrame extends HeaderFlyweight {

    @Override
    DataFrame wrap(MemorySegment segment) {
        super.wrap(segment);
        return this;
    }

    @Override
    DataFrame wrapAt(MemorySegment segment, long base) {
        super.wrapAt(segment, base);
        return this;
    }

    /** WRITE: where this packet's payload goes; READ_REQ, ATOMIC_REQ: the target address. */
    long remoteAddress() { return rawLong(ADDRESS_OFFSET); }
    long remoteKey() { return rawLong(RKEY_OFFSET); }
    int immediate() { return rawInt(IMMEDIATE_OFFSET); }
    /** SEND, WRITE: the whole message's length; READ_REQ: the read's length. */
    int messageLength() { return rawInt(LENGTH_OFFSET); }
    /** SEND, WRITE: the payload's offset in its message. */
    long messageOffset() { return rawLong(OPERAND1_OFFSET); }
    /** READ_REQ, ATOMIC_REQ: the requester's send sequence number, echoed in the response. */
    long ssn() { return rawLong(OPERAND1_OFFSET); }
    /** SEND, WRITE: the message sequence number of a receive-consuming message. */
    long msn() { return rawLong(OPERAND2_OFFSET); }
    /** ATOMIC_REQ: the compare (CMP_SWAP) or add (FETCH_ADD) operand. */
    long compareAdd() { return rawLong(OPERAND2_OFFSET); }
    /** ATOMIC_REQ: the swap value, the first payload word. */
    long swap() { return longAt(HEADER_LENGTH); }

    DataFrame remoteAddress(long v) { rawLong(ADDRESS_OFFSET, v); return this; }
    DataFrame remoteKey(long v) { rawLong(RKEY_OFFSET, v); return this; }
    DataFrame immediate(int v) { rawInt(IMMEDIATE_OFFSET, v); return this; }
    DataFrame messageLength(int v) { rawInt(LENGTH_OFFSET, v); return this; }
    DataFrame messageOffset(long v) { rawLong(OPERAND1_OFFSET, v); return this; }
    DataFrame ssn(long v) { rawLong(OPERAND1_OFFSET, v); return this; }
    DataFrame msn(long v) { rawLong(OPERAND2_OFFSET, v); return this; }
    DataFrame compareAdd(long v) { rawLong(OPERAND2_OFFSET, v); return this; }
    DataFrame swap(long v) { longAt(HEADER_LENGTH, v); return this; }
}
