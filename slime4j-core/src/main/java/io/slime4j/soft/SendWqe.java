package io.slime4j.soft;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkRequest;

import java.lang.foreign.MemorySegment;

/**
 * A send-queue entry: a copy of the posted {@link WorkRequest} plus the requester's progress on
 * it. Pre-allocated in the send ring and reused; written by the posting thread before it is
 * published, then owned by the progress agent until it is retired.
 */
final class SendWqe {
    // copied at post time
    long ssn;
    long wrId;
    Opcode opcode;
    boolean signaled;
    boolean fence;
    int immediate;
    long remoteAddress;
    long remoteKey;
    long compareAdd;
    long swap;
    int numSge;
    final long[] sgeAddress;
    final long[] sgeLength;
    final long[] sgeKey;
    int length;

    // resolved by the agent when it starts the request
    final KeyTable.Entry[] sgeSegment;
    final long[] sgeOffset;

    // progress (agent only)
    boolean started;
    /** Message sequence number, for requests that consume a receive at the peer. */
    int msn;
    int bytesSent;
    int lastPsn;
    boolean allSent;
    boolean acked;
    boolean responseDone;
    int responseBytes;
    long responseProgressNanos;
    WcStatus status;

    SendWqe(int maxSge) {
        sgeAddress = new long[maxSge];
        sgeLength = new long[maxSge];
        sgeKey = new long[maxSge];
        sgeSegment = new KeyTable.Entry[maxSge];
        sgeOffset = new long[maxSge];
    }

    /** Copies {@code wr} in; the caller validated it. */
    void load(long ssn, WorkRequest wr, boolean signalAll) {
        this.ssn = ssn;
        wrId = wr.wrId();
        opcode = wr.opcode();
        signaled = signalAll || wr.signaled();
        fence = wr.fence();
        immediate = wr.immediate();
        remoteAddress = wr.remoteAddress();
        remoteKey = wr.remoteKey();
        compareAdd = wr.compareAdd();
        swap = wr.swap();
        numSge = wr.numSge();
        for (int i = 0; i < numSge; i++) {
            sgeAddress[i] = wr.sgeAddress(i);
            sgeLength[i] = wr.sgeLength(i);
            sgeKey[i] = wr.sgeKey(i);
            sgeSegment[i] = null;
        }
        length = (int) wr.totalLength();
        started = false;
        bytesSent = 0;
        lastPsn = 0;
        allSent = false;
        acked = false;
        responseDone = !opcode.isReadOrAtomic();
        responseBytes = 0;
        status = null;
    }

    /** Whether the request has finished, successfully or not, as far as the requester can tell. */
    boolean isDone() {
        return status != null || (allSent && acked && responseDone);
    }

    /** Drops references to user memory once the request is retired from the agent's view. */
    void release() {
        for (int i = 0; i < numSge; i++) {
            sgeSegment[i] = null;
        }
    }
}
