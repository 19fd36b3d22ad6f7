package io.slime4j.endpoint;

import io.slime4j.verbs.WcStatus;

/**
 * What happens when the endpoint fails (a message queue pair or its last lane failed a request, the
 * {@link Keepalive} probe ran out of retries, the completion queue overflowed, the dispatcher died): the first reason is kept, and at once every
 * operation the endpoint holds completes FAILED with that status and reason — one-sided ops, sends
 * waiting for a meta, recvs waiting for data, immRecvs waiting for an immediate, callers waiting
 * for a slot or a credit — and every later call throws it. Then every queue pair is moved to ERR,
 * so that whatever is posted flushes: slots come back and ops settle without waiting for the
 * peer's retry budget on each of them.
 */
final class EndpointFailure {
    private final Lifecycle lifecycle;
    private final OpTracker tracker;
    private final ImmRecvPath imm;
    private final MessagePath messages;
    private final SlotPool ioPool;
    private final IoSendQueue[] sendQueues;
    private final Transport transport;

    EndpointFailure(Lifecycle lifecycle, OpTracker tracker, ImmRecvPath imm, MessagePath messages, SlotPool ioPool,
                    IoSendQueue[] sendQueues, Transport transport) {
        this.lifecycle = lifecycle;
        this.tracker = tracker;
        this.imm = imm;
        this.messages = messages;
        this.ioPool = ioPool;
        this.sendQueues = sendQueues;
        this.transport = transport;
    }

    /** Fails the endpoint for {@code why}; a second failure is only logged. Any thread; never blocks. */
    void fail(WcStatus status, String why) {
        if (!lifecycle.markFailed(status, why)) {
            return;
        }
        String message = "endpoint " + lifecycle.name() + " failed: " + why;
        tracker.failAll(status, message);
        imm.failAll(status, message);
        messages.failAll(status, message);
        ioPool.fail(message);
        messages.sendPool().fail(message);
        messages.recvPool().fail(message);
        for (IoSendQueue sq : sendQueues) {
            sq.wakeCreditWaiters();
        }
        imm.wakeWaiters();
        messages.eager().credits().wake();
        if (!lifecycle.isClosing()) {
            transport.flush();
        }
    }
}
