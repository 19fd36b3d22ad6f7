package io.slime4j.endpoint;

import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;

/**
 * The message path's completions on the dispatch thread, apart from the meta window (which feeds
 * {@link MessagePath}'s matching): the peer's data — or its cancellation — arriving in a recv slot
 * through the data window (re-posted first, I5; eager messages are handed to {@link EagerPath}, which
 * copies them out of their bounce buffer before the re-post), and the completions of this endpoint's own meta
 * SENDs (recv slots) and data writes (send slots). Each counts down its slot and fails its op when
 * the request failed or the peer said why not.
 */
final class MessageCompletions {
    private final String name;
    private final Transport transport;
    private final EndpointHooks hooks;
    private final SlotPool sendPool;
    private final SlotPool recvPool;
    private final SlotReleaser releaser;
    private final Anomalies anomalies;
    private final EagerPath eager;

    MessageCompletions(String name, Transport transport, EndpointHooks hooks, SlotPool sendPool, SlotPool recvPool,
                       SlotReleaser releaser, Anomalies anomalies, EagerPath eager) {
        this.eager = eager;
        this.name = name;
        this.transport = transport;
        this.hooks = hooks;
        this.sendPool = sendPool;
        this.recvPool = recvPool;
        this.releaser = releaser;
        this.anomalies = anomalies;
    }

    /** Dispatch thread: the peer's data (or its cancellation) arrived for one of our recv slots. */
    void onDataWindow(WorkCompletion wc) {
        RecvWindow w = transport.dataWindow;
        int entry = WrIds.slot(wc.wrId());
        w.consumed();
        if (!wc.isSuccess()) {
            return;
        }
        boolean repostFirst = hooks.repostBeforeRelease();
        if (wc.hasImmediate() && Wire32.code(wc.immediate()) == Wire32.CODE_EAGER
                && wc.opcode() == WcOpcode.RECV) {
            Slot s = eager.take(wc, w.entry(entry)); // copies the payload out of the bounce buffer
            if (repostFirst) {
                w.post(entry);
            }
            try {
                eager.finish(s, wc);
            } finally {
                if (!repostFirst) {
                    w.post(entry);
                }
            }
            return;
        }
        if (repostFirst) {
            w.post(entry);
        }
        try {
            deliverData(wc);
        } finally {
            if (!repostFirst) {
                w.post(entry);
            }
        }
    }

    private void deliverData(WorkCompletion wc) {
        int value = wc.immediate();
        int index = Wire32.tokenSlot(value);
        if (!wc.hasImmediate() || wc.opcode() != WcOpcode.RECV_RDMA_WITH_IMM || index >= recvPool.capacity()) {
            anomalies.protocolError("data queue pair received something that is not message data: " + wc);
            return;
        }
        Slot slot = recvPool.slot(index);
        OpState op = slot.tenant();
        if (op == null) {
            if (slot.remaining() > 0) {
                releaser.countDown(recvPool, slot, 1); // its op is gone (counted as lost)
            } else {
                anomalies.protocolError("message data for recv slot " + index + ", which has no receive");
            }
            return;
        }
        if (!Wire32.tokenMatches(value, op.seq)) {
            anomalies.aliased(wc.wrId(), op);
            return;
        }
        eager.forget(slot);
        switch (Wire32.code(value)) {
            case Wire32.CODE_DATA -> op.bytes(wc.byteLength());
            case Wire32.CODE_CANCELLED -> op.fail(WcStatus.REM_ABORT_ERR, "endpoint " + name
                    + ": the peer cancelled the send matched with this recv");
            case Wire32.CODE_TOO_LONG -> op.fail(WcStatus.LOC_LEN_ERR, "endpoint " + name
                    + ": the peer's matching send is longer than this recv");
            default -> op.fail(WcStatus.GENERAL_ERR, "endpoint " + name + ": unknown message code " + Wire32.code(value));
        }
        releaser.countDown(recvPool, slot, 1);
    }

    /** Dispatch thread: the meta SEND of a recv completed. */
    void onMetaSent(WorkCompletion wc) {
        Slot slot = recvPool.slot(WrIds.slot(wc.wrId()));
        OpState op = slot.tenant();
        if (op != null && !WrIds.tagMatches(wc.wrId(), op.seq)) {
            anomalies.aliased(wc.wrId(), op);
        }
        if (wc.isSuccess()) {
            releaser.countDown(recvPool, slot, 1);
            return;
        }
        if (op != null) {
            op.fail(wc.status(), "endpoint " + name + ": the meta message of recv op " + op.seq + " failed: "
                    + wc.status());
        }
        // no data will come for a meta that never made it (the data arrival is counted on this thread too)
        releaser.countDown(recvPool, slot, slot.remaining());
    }

    /** Dispatch thread: the data request of a send completed. */
    void onDataSent(WorkCompletion wc) {
        Slot slot = sendPool.slot(WrIds.slot(wc.wrId()));
        OpState op = slot.tenant();
        if (op != null) {
            if (!WrIds.tagMatches(wc.wrId(), op.seq)) {
                anomalies.aliased(wc.wrId(), op);
            }
            if (!wc.isSuccess()) {
                op.fail(wc.status(), "endpoint " + name + ": send op " + op.seq + " completed with " + wc.status());
            }
        }
        releaser.countDown(sendPool, slot, 1);
    }

}
