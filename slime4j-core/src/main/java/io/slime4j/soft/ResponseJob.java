package io.slime4j.soft;

import io.slime4j.verbs.WcStatus;

/**
 * A read or atomic response the responder owes its peer, sent on this queue pair's own reliable
 * stream. For a read the data is re-read from the target region (validated again by key) each
 * time a packet is built, so a region deregistered meanwhile yields an error response rather than
 * an access to freed memory.
 */
final class ResponseJob {
    boolean atomic;
    long ssn;
    long remoteKey;
    long address;
    int length;
    int queued;
    long atomicValue;
    WcStatus status;

    ResponseJob read(long ssn, long remoteKey, long address, int length) {
        this.atomic = false;
        this.ssn = ssn;
        this.remoteKey = remoteKey;
        this.address = address;
        this.length = length;
        this.queued = 0;
        this.status = null;
        return this;
    }

    ResponseJob atomic(long ssn, long value) {
        this.atomic = true;
        this.ssn = ssn;
        this.atomicValue = value;
        this.length = 0;
        this.queued = 0;
        this.status = null;
        return this;
    }
}
