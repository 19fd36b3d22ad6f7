package io.slime4j.soft;

import io.slime4j.verbs.WorkRequest;

import java.lang.foreign.MemorySegment;

/**
 * A receive-queue entry: a copy of the posted receive. Pre-allocated in the receive ring; written
 * by the posting thread before publication, then owned by the progress agent until it completes.
 */
final class RecvWqe {
    long wrId;
    int numSge;
    final long[] sgeAddress;
    final long[] sgeLength;
    final long[] sgeKey;
    long capacity;
    final KeyTable.Entry[] sgeSegment;
    final long[] sgeOffset;
    boolean resolved;

    RecvWqe(int maxSge) {
        sgeAddress = new long[maxSge];
        sgeLength = new long[maxSge];
        sgeKey = new long[maxSge];
        sgeSegment = new KeyTable.Entry[maxSge];
        sgeOffset = new long[maxSge];
    }

    void load(WorkRequest wr) {
        wrId = wr.wrId();
        numSge = wr.numSge();
        capacity = 0;
        for (int i = 0; i < numSge; i++) {
            sgeAddress[i] = wr.sgeAddress(i);
            sgeLength[i] = wr.sgeLength(i);
            sgeKey[i] = wr.sgeKey(i);
            sgeSegment[i] = null;
            capacity += sgeLength[i];
        }
        resolved = false;
    }
}
