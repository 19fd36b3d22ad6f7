package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.HEADER_LENGTH;

import io.slime4j.verbs.AccessFlags;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The peer's accesses to this side's registered memory, checked by key, protection domain,
 * access right and bounds on every packet: RDMA-write placement, and the execution of reads
 * (queued as responses) and atomics. A write is checked by one method, {@link #checkWrite}, both
 * for a packet received whole and for one whose payload the wire is about to receive straight
 * at its target ({@link WritePlacement}). Progress agent thread only.
 */
final class RemoteAccess {
    private static final VarHandle LONG_HANDLE = ValueLayout.JAVA_LONG.varHandle();

    /** What {@link #checkWrite} found. */
    enum WriteCheck {
        /** The target is valid: {@link #target()} at {@link #targetBase()} holds the whole message. */
        OK,
        /** A zero-length write: nothing to place, nothing to check. */
        EMPTY,
        /** Lengths and offsets do not make sense: a bad packet. */
        MALFORMED,
        /** Bad key, wrong domain, no write access, or out of bounds. */
        NO_ACCESS
    }

    private final KeyTable keyTable;
    private final SoftProtectionDomain pd;
    private final ResponseQueue responses;
    private KeyTable.Entry target;
    private long targetBase;

    RemoteAccess(KeyTable keyTable, SoftProtectionDomain pd, ResponseQueue responses) {
        this.keyTable = keyTable;
        this.pd = pd;
        this.responses = responses;
    }

    /** The region {@code rkey} names if it belongs to this queue pair's domain and allows {@code access}. */
    KeyTable.Entry entry(long rkey, int access) {
        KeyTable.Entry e = keyTable.byRemoteKey(rkey);
        return e != null && e.pd == pd && (e.access & access) != 0 ? e : null;
    }

    /** Checks an RDMA-write packet with {@code payload} bytes of its message: form, key, access and bounds. */
    WriteCheck checkWrite(DataFrame d, int payload) {
        if (!isWellFormedPart(d, payload)) {
            return WriteCheck.MALFORMED;
        }
        int msgLength = d.messageLength();
        long offset = d.messageOffset();
        if (msgLength == 0) {
            return WriteCheck.EMPTY;
        }
        KeyTable.Entry e = entry(d.remoteKey(), AccessFlags.REMOTE_WRITE);
        long base = e == null ? -1 : e.offsetOf(d.remoteAddress() - offset, msgLength);
        if (base < 0) {
            return WriteCheck.NO_ACCESS;
        }
        target = e;
        targetBase = base;
        return WriteCheck.OK;
    }

    /** Whether a SEND or WRITE packet's lengths make sense: its payload lies inside its message. */
    static boolean isWellFormedPart(DataFrame d, int payload) {
        int msgLength = d.messageLength();
        long offset = d.messageOffset();
        return msgLength >= 0 && offset >= 0 && payload <= msgLength - offset;
    }

    /** The region of the write {@link #checkWrite} passed last. */
    KeyTable.Entry target() {
        return target;
    }

    /** Offset in {@link #target()}'s segment where that write's message starts. */
    long targetBase() {
        return targetBase;
    }

    /**
     * Places an RDMA-write payload at its target after {@link #checkWrite} passed, unless the wire
     * placed it there already ({@code placed}).
     */
    Verdict placeWrite(DataFrame d, MemorySegment packet, int payload, boolean placed) {
        if (placed) {
            return Verdict.OK;
        }
        try {
            MemorySegment.copy(packet, HEADER_LENGTH, target.segment, targetBase + d.messageOffset(), payload);
        } catch (IllegalStateException | IndexOutOfBoundsException ex) {
            return Verdict.NAK_REMOTE_ACCESS;
        }
        return Verdict.OK;
    }

    /** Checks a read request's target; an empty read needs no key. */
    Verdict checkRead(long rkey, long address, int length) {
        if (length > 0) {
            KeyTable.Entry e = entry(rkey, AccessFlags.REMOTE_READ);
            if (e == null || e.offsetOf(address, length) < 0) {
                return Verdict.NAK_REMOTE_ACCESS;
            }
        }
        return Verdict.OK;
    }

    /** Queues the response to a checked read (its data is read when each packet is built). */
    Verdict executeRead(long ssn, long rkey, long address, int length) {
        if (!responses.hasRoom()) {
            return Verdict.NAK_INVALID_REQUEST;
        }
        responses.addRead(ssn, rkey, address, length);
        return Verdict.OK;
    }

    /** Checks an atomic's target: key, access, bounds, then 8-byte alignment. */
    Verdict checkAtomic(long rkey, long address) {
        KeyTable.Entry e = entry(rkey, AccessFlags.REMOTE_ATOMIC);
        long off = e == null ? -1 : e.offsetOf(address, 8);
        if (off < 0) {
            return Verdict.NAK_REMOTE_ACCESS;
        }
        if ((address & 7) != 0) {
            return Verdict.NAK_INVALID_REQUEST;
        }
        target = e;
        targetBase = off;
        return Verdict.OK;
    }

    /** Executes the atomic {@link #checkAtomic} passed last and queues its response. */
    Verdict executeAtomic(long ssn, long compareAdd, long swap, boolean cmpSwap) {
        if (!responses.hasRoom()) {
            return Verdict.NAK_INVALID_REQUEST;
        }
        long old;
        try {
            old = cmpSwap ? (long) LONG_HANDLE.compareAndExchange(target.segment, targetBase, compareAdd, swap)
                    : (long) LONG_HANDLE.getAndAdd(target.segment, targetBase, compareAdd);
        } catch (IllegalStateException | IllegalArgumentException | IndexOutOfBoundsException ex) {
            return Verdict.NAK_REMOTE_ACCESS;
        }
        responses.addAtomic(ssn, old);
        return Verdict.OK;
    }
}
