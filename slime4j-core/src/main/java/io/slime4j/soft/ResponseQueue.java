package io.slime4j.soft;

import java.util.ArrayDeque;

/**
 * The read and atomic responses a queue pair owes its peer, in the order the responder executed
 * the requests: the one-direction seam between the {@link Responder}, which only adds, and the
 * {@link Requester}, which sends them on this side's reliable stream. Jobs are pooled: one
 * returns here once its last packet is acknowledged. Progress agent thread only.
 */
final class ResponseQueue {
    /** Most responses owed at once; a request beyond it is refused with an invalid-request NAK. */
    static final int MAX_PENDING = 256;

    private final ArrayDeque<ResponseJob> pending = new ArrayDeque<>();
    private final ArrayDeque<ResponseJob> free = new ArrayDeque<>();

    /** Whether another response may be owed. */
    boolean hasRoom() {
        return pending.size() < MAX_PENDING;
    }

    int size() {
        return pending.size();
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    void addRead(long ssn, long remoteKey, long address, int length) {
        pending.add(take().read(ssn, remoteKey, address, length));
    }

    void addAtomic(long ssn, long value) {
        pending.add(take().atomic(ssn, value));
    }

    /** The oldest response not yet wholly sent, or null. */
    ResponseJob peek() {
        return pending.peek();
    }

    /** Its packets are all queued on the stream (the segments keep the job until acknowledged). */
    void removeHead() {
        pending.poll();
    }

    /** A job whose last packet was acknowledged, for reuse. */
    void recycle(ResponseJob job) {
        free.add(job);
    }

    /** Drops every owed response (queue pair failing). */
    void clear() {
        pending.clear();
    }

    private ResponseJob take() {
        ResponseJob j = free.poll();
        return j != null ? j : new ResponseJob();
    }
}
