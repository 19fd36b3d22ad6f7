package io.slime4j.endpoint;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;

/**
 * Tells the peer about recvs cancelled before their data arrived (the receiver's side of issue 15's
 * cancel semantics). For each such recv whose meta is out, it re-sends the recv's own 32-byte meta
 * buffer on the meta queue pair as a CANCEL message; the peer marks that meta, and the send it is
 * matched with fails with REM_ABORT_ERR and writes nothing (it answers with the CANCELLED code,
 * which ends the recv slot's lease). So a cancelled recv never swallows a message silently, and
 * the k-th send still pairs with the k-th recv.
 *
 * <p>A notice never overtakes its meta: a recv cancelled before its meta was posted (cancelAll on
 * another thread, between the slot's lease and the post) is skipped here, and the recv itself sends
 * the notice once its meta is out ({@link #metaPosted}). Either the recv sees the cancellation or the
 * canceller sees the posted meta (both flags are volatile, written before they read the other's);
 * {@link Slot#cancelNotified} keeps it to one notice.
 *
 * <p>The notice is one more completion of the recv slot's lease ({@link Slot#extend}): the slot —
 * and the meta buffer the notice is sent from — cannot be re-leased before the notice completed.
 * When the peer had already matched the meta (its send was waiting), the data is on its way: the
 * notice is ignored, the sender sees SUCCESS and the cancelled recv's buffer holds the data once it
 * settles.
 */
final class CancelNotices {
    private final String endpoint;
    private final Lifecycle lifecycle;
    private final Transport transport;
    private final SlotPool recvPool;
    private final SlotReleaser releaser;
    private final Anomalies anomalies;
    private final WorkRequest wr = new WorkRequest();

    CancelNotices(Lifecycle lifecycle, Transport transport, SlotPool recvPool, SlotReleaser releaser,
                  Anomalies anomalies) {
        this.endpoint = lifecycle.name();
        this.lifecycle = lifecycle;
        this.transport = transport;
        this.recvPool = recvPool;
        this.releaser = releaser;
        this.anomalies = anomalies;
    }

    /** After a cancel: notifies the peer of every cancelled recv still waiting for its data; how many. */
    synchronized int notifyCancelled() {
        if (lifecycle.isEnding()) {
            return 0; // closing or failed: the queue pairs go to ERR, the peer learns nothing more
        }
        int n = 0;
        for (Slot s : recvPool.leased()) {
            OpState op = s.tenant();
            if (op == null || s.cancelNotified || !s.metaPosted || !isCancelled(op) || !s.extend()) {
                continue;
            }
            if (s.tenant() != op) { // re-leased meanwhile: the extension belongs to another lease
                releaser.countDown(recvPool, s, 1);
                continue;
            }
            s.cancelNotified = true;
            wr.clear().wrId(WrIds.encode(WrIds.CANCEL_SEND, 0, s.index, 0, op.seq)).opcode(Opcode.SEND_WITH_IMM)
                    .immediate(Wire32.metaImm(Wire32.CANCEL_TYPE, 0))
                    .sge(transport.control, s.metaOffset, Wire32.META_BYTES);
            try {
                transport.meta.postSend(wr);
                n++;
            } catch (RuntimeException e) {
                anomalies.protocolError("endpoint " + endpoint + ": could not tell the peer that recv op " + op.seq
                        + " was cancelled: " + e.getMessage());
                releaser.countDown(recvPool, s, 1);
            }
        }
        return n;
    }

    /**
     * The recv's thread: the meta of {@code op}'s lease of {@code s} has been posted. If the recv was
     * cancelled meanwhile, the canceller may have skipped it: the notice goes now, after the meta.
     */
    void metaPosted(Slot s, OpState op) {
        s.metaPosted = true;
        if (isCancelled(op)) {
            notifyCancelled();
        }
    }

    private static boolean isCancelled(OpState op) {
        OpState.Result r = op.result();
        return r != null && r.status() == TransferStatus.CANCELLED;
    }

    /** Dispatch thread: a cancel notice completed (sent, or flushed): it no longer holds its slot. */
    void onSent(WorkCompletion wc) {
        releaser.countDown(recvPool, recvPool.slot(WrIds.slot(wc.wrId())), 1);
    }
}
