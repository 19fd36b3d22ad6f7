package io.slime4j.shm;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WorkRequest;

/**
 * A posted request or receive, copied from the caller's {@link WorkRequest} into a pre-allocated
 * slot of a queue pair's send or receive queue (posting allocates nothing). While a send request
 * is outstanding it holds a use of each local region it names ({@link #regions}).
 */
final class Wqe {
    long ssn;
    long wrId;
    Opcode opcode;
    boolean signaled;
    int immediate;
    long remoteAddress;
    long remoteKey;
    long compareAdd;
    long swap;
    long length;
    int numSge;
    final long[] address;
    final long[] sgeLength;
    final long[] key;
    final ShmRegion[] regions;
    int held;

    Wqe(int maxSge) {
        address = new long[maxSge];
        sgeLength = new long[maxSge];
        key = new long[maxSge];
        regions = new ShmRegion[maxSge];
    }

    void load(long ssn, WorkRequest wr, boolean signalAll) {
        this.ssn = ssn;
        wrId = wr.wrId();
        opcode = wr.opcode();
        signaled = signalAll || wr.signaled();
        immediate = wr.immediate();
        remoteAddress = wr.remoteAddress();
        remoteKey = wr.remoteKey();
        compareAdd = wr.compareAdd();
        swap = wr.swap();
        numSge = wr.numSge();
        length = 0;
        for (int i = 0; i < numSge; i++) {
            address[i] = wr.sgeAddress(i);
            sgeLength[i] = wr.sgeLength(i);
            key[i] = wr.sgeKey(i);
            length += sgeLength[i];
        }
        held = 0;
    }

    /** Gives back the region uses taken while the request was outstanding. */
    void releaseRegions() {
        for (int i = 0; i < held; i++) {
            regions[i].release();
            regions[i] = null;
        }
        held = 0;
    }
}
