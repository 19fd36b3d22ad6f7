package io.slime4j.endpoint;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkRequest;

/**
 * Fires the {@link ImmFence} of a write-with-imm spread over several queue pairs once every data
 * request completed: posts the zero-length RDMA_WRITE_WITH_IMM in the position reserved for it
 * (on a live lane if its own failed meanwhile), or, when the op failed or was cancelled, gives back
 * what was reserved for it (the peer's credit, the send-queue credit, the slot position). Called by
 * whoever counted the fence's last arrival: the caller or the dispatch thread.
 */
final class DeferredImm {
    private final String endpoint;
    private final SlotPool pool;
    private final IoSendQueue[] sendQueues;
    private final Router router;
    private final ImmRecvPath imm;
    private final SlotReleaser releaser;

    DeferredImm(String endpoint, SlotPool pool, IoSendQueue[] sendQueues, Router router, ImmRecvPath imm,
                SlotReleaser releaser) {
        this.endpoint = endpoint;
        this.pool = pool;
        this.sendQueues = sendQueues;
        this.router = router;
        this.imm = imm;
        this.releaser = releaser;
    }

    /** Every data request of the op completed: post its immediate, or give back its reservations. */
    void fire(OpState op, ImmFence f) {
        if (f.slot < 0) {
            imm.returnPeerCredit();
            return;
        }
        Slot slot = pool.slot(f.slot);
        if (op.hasFailed() || op.isDone() || !f.sqCreditHeld) {
            if (f.sqCreditHeld) {
                sendQueues[f.qp].releaseCredit();
            }
            drop(slot);
            return;
        }
        int q = f.qp;
        if (router.isDead(q)) { // its lane failed meanwhile: the immediate takes a live one
            q = moveToLiveLane(op, f);
            if (q < 0) {
                drop(slot);
                return;
            }
        }
        slot.subQp[f.sub] = q;
        slot.subLength[f.sub] = 0;
        WorkRequest wr = new WorkRequest().wrId(WrIds.encode(WrIds.IO, q, slot.index, f.sub, op.seq))
                .opcode(Opcode.RDMA_WRITE_WITH_IMM).immediate(f.immediate)
                .remote(f.remoteAddress, q == f.qp ? f.remoteKey : op.plan.immKey(q));
        try {
            sendQueues[q].post(wr, slot.index, f.sub, true, false);
        } catch (RuntimeException e) {
            sendQueues[q].releaseCredit();
            op.fail(WcStatus.GENERAL_ERR, endpoint + ": posting the immediate of op " + op.seq + " failed: " + e.getMessage());
            drop(slot);
        }
    }

    /**
     * Trades the credit held on the fence's dead lane for one on the next live lane; that lane, or
     * -1 (the op failed) when there is none or it has no credit free (this thread never waits).
     */
    private int moveToLiveLane(OpState op, ImmFence f) {
        int q = f.qp;
        int live;
        try {
            live = router.liveAfter(q);
        } catch (EndpointException e) {
            live = q; // no lane left
        }
        boolean moved = live != q && sendQueues[live].tryAcquireCredit();
        sendQueues[q].releaseCredit();
        if (!moved) {
            op.fail(WcStatus.RETRY_EXC_ERR, endpoint + ": lane " + q + " of the immediate of op " + op.seq
                    + " failed and no live lane had a send-queue credit free");
            return -1;
        }
        return live;
    }

    /** The immediate will not leave: gives back its peer credit and counts its slot position down. */
    void drop(Slot slot) {
        imm.returnPeerCredit();
        releaser.countDown(pool, slot, 1);
    }
}
