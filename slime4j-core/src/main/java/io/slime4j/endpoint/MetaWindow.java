package io.slime4j.endpoint;

import io.slime4j.verbs.WorkCompletion;

/**
 * The dispatch of the meta window (on rail 0's dispatch thread): each receive's 32-byte message is
 * copied out and the receive re-posted before it is acted on (I5), then handed on by its type — a
 * peer's rendezvous meta and its cancel notice to {@link MessagePath}'s matching, imm credits to
 * {@link ImmRecvPath}, eager credits to {@link EagerPath}, lane messages to {@link LaneRecovery}.
 */
final class MetaWindow {
    private final Transport transport;
    private final EndpointHooks hooks;
    private final Anomalies anomalies;
    private final ImmRecvPath imm;
    private final LaneRecovery lanes;
    private final MessagePath messages;

    MetaWindow(Transport transport, EndpointHooks hooks, Anomalies anomalies, ImmRecvPath imm, LaneRecovery lanes,
               MessagePath messages) {
        this.transport = transport;
        this.hooks = hooks;
        this.anomalies = anomalies;
        this.imm = imm;
        this.lanes = lanes;
        this.messages = messages;
    }

    /** Dispatch thread: a meta-window receive completed. */
    void onCompletion(WorkCompletion wc) {
        RecvWindow w = transport.metaWindow;
        int entry = WrIds.slot(wc.wrId());
        w.consumed();
        if (!wc.isSuccess()) {
            return; // flushed: closing
        }
        int type = Wire32.metaType(wc.immediate());
        Wire32.Meta meta = type == Wire32.META_TYPE || type == Wire32.CANCEL_TYPE
                ? Wire32.readMeta(w.entry(entry)) : null; // copy before re-post
        Wire32.Lane lane = type == Wire32.LANE_RESET_TYPE || type == Wire32.LANE_READY_TYPE
                ? Wire32.readLane(w.entry(entry)) : null;
        boolean repostFirst = hooks.repostBeforeRelease();
        if (repostFirst) {
            w.post(entry);
        }
        try {
            if (!wc.hasImmediate() || type < Wire32.META_TYPE || type > Wire32.EAGER_CREDIT_TYPE) {
                anomalies.protocolError("meta queue pair received a message of unknown type: " + wc);
            } else if (type == Wire32.LANE_RESET_TYPE || type == Wire32.LANE_READY_TYPE) {
                if (lane == null) {
                    anomalies.protocolError("lane message with a bad magic: " + wc);
                } else {
                    lanes.onMessage(type, Wire32.metaValue(wc.immediate()), lane, System.nanoTime());
                }
            } else if (type == Wire32.CREDIT_TYPE) {
                imm.creditsReturned(Wire32.metaValue(wc.immediate()));
            } else if (type == Wire32.EAGER_CREDIT_TYPE) {
                messages.eager().creditsReturned(Wire32.metaValue(wc.immediate()));
            } else if (meta == null) {
                anomalies.protocolError("meta message with a bad magic: " + wc);
            } else if (type == Wire32.CANCEL_TYPE) {
                messages.cancelQueuedMeta(meta.token());
            } else {
                messages.offerMeta(meta);
            }
        } finally {
            if (!repostFirst) {
                w.post(entry);
            }
        }
    }
}
