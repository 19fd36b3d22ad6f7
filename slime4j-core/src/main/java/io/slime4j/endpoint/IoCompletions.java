package io.slime4j.endpoint;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;

/**
 * One-sided operations, the dispatch thread's side: a completion of an io request retires its own
 * request and every older unsignaled one on its queue pair ({@link IoSendQueue#retire}); each is
 * counted on its slot, fails its op if it failed, and counts down the op's {@link ImmFence}. A
 * request that failed on a lane taken out of the rotation may run again on a live one (failover).
 */
final class IoCompletions {
    private final String endpoint;
    private final Lifecycle lifecycle;
    private final Router router;
    private final SlotPool pool;
    private final IoSendQueue[] sendQueues;
    private final DeferredImm deferred;
    private final SlotReleaser releaser;
    private final Anomalies anomalies;
    private final Stats stats;
    private final LaneRecovery lanes;
    /** Flushed requests waiting for a lane to come back. */
    private final ParkedRequests parked;

    IoCompletions(Lifecycle lifecycle, Router router, SlotPool pool, IoSendQueue[] sendQueues, DeferredImm deferred,
                  SlotReleaser releaser, Anomalies anomalies, Stats stats, LaneRecovery lanes) {
        this.lanes = lanes;
        this.endpoint = lifecycle.name();
        this.lifecycle = lifecycle;
        this.router = router;
        this.pool = pool;
        this.sendQueues = sendQueues;
        this.deferred = deferred;
        this.releaser = releaser;
        this.anomalies = anomalies;
        this.stats = stats;
        this.parked = new ParkedRequests(router, lifecycle::isEnding, this::runParked);
    }

    /** Dispatch thread: a completion of an io request. */
    void onCompletion(WorkCompletion wc) {
        handle(wc);
        lanes.onRetired(WrIds.qp(wc.wrId())); // a lane being re-established may move now (one volatile read otherwise)
    }

    private void handle(WorkCompletion wc) {
        long id = wc.wrId();
        int q = WrIds.qp(id);
        IoSendQueue sq = sendQueues[q];
        int n = sq.retire(WrIds.slot(id), WrIds.sub(id));
        if (n == 0) {
            anomalies.protocolError("completion of an io request that is not outstanding: " + WrIds.toString(id) + " " + wc);
            return;
        }
        for (int k = 0; k < n - 1; k++) { // older unsignaled requests: they succeeded (RC completes in order)
            if (sq.retiredSlot[k] != IoSendQueue.COVER_SLOT) {
                settle(q, pool.slot(sq.retiredSlot[k]), sq.retiredSub[k], id, false, null);
            }
        }
        if (WrIds.slot(id) == IoSendQueue.COVER_SLOT) {
            return;
        }
        if (!wc.isSuccess() && reissue(id, wc.status())) {
            return; // failover: the request runs again on a live lane (now or when one is back); its completion comes from there
        }
        settle(q, pool.slot(WrIds.slot(id)), WrIds.sub(id), id, true, wc.isSuccess() ? null : wc.status());
    }

    /**
     * One retired request: {@code own} when {@code id} is its own completion (not a later one's that
     * retired it); {@code failed} its failure status, null for success.
     */
    private void settle(int q, Slot slot, int sub, long id, boolean own, WcStatus failed) {
        OpState op = slot.tenant();
        if (op != null) {
            if (own && !WrIds.tagMatches(id, op.seq)) {
                anomalies.aliased(id, op);
            }
            if (failed != null) {
                op.fail(failed, endpoint + ": " + op.kind + " op " + op.seq + ": request of " + slot.subLength[sub]
                        + " bytes on io QP " + q + " completed with " + failed);
            }
            ImmFence f = op.fence;
            if (f != null && !f.isImmRequest(slot.index, sub) && f.arrive(1)) {
                deferred.fire(op, f);
            }
        }
        releaser.countDown(pool, slot, 1);
    }

    /**
     * Failover: a request that failed or was flushed on a lane taken out of the rotation runs again
     * on the next live lane, with the same slot position (so the slot's count and the op's fence are
     * untouched), when that is safe: plain reads and writes are idempotent; a request carrying an
     * immediate is not (the peer may have seen it), so its op fails instead. Only a request the lane
     * failed is re-issued — retries exhausted, or flushed behind another failure; one the peer or the
     * local side refused (a key, a length) would fail the same way on every lane and take each down
     * in turn, so its op fails. Needs a free send-queue credit on the new lane (the dispatch thread
     * never waits). Returns whether the request was re-posted.
     */
    private boolean reissue(long id, WcStatus status) {
        int q = WrIds.qp(id);
        if (lifecycle.isEnding() || !router.isDead(q)
                || (status != WcStatus.RETRY_EXC_ERR && status != WcStatus.WR_FLUSH_ERR)) {
            return false;
        }
        Slot slot = pool.slot(WrIds.slot(id));
        int sub = WrIds.sub(id);
        OpState op = slot.tenant();
        IoPlan plan = op == null ? null : op.plan;
        int r = slot.subRequest[sub];
        if (plan == null || op.isDone() || op.hasFailed() || !WrIds.tagMatches(id, op.seq) || r < 0
                || (op.kind == OpKind.WRITE_WITH_IMM && op.fence == null && r == plan.count - 1)) {
            return false;
        }
        int lane;
        try {
            lane = router.liveAfter(q);
        } catch (EndpointException e) {
            return false;
        }
        if (lane == q || router.isRecovering(lane)) {
            parked.park(id); // no live lane now, one is being re-established: the request runs when it is back
            return true;
        }
        return post(id, lane, slot, sub, op, plan, r);
    }

    /** Posts a re-issued request on {@code lane}; whether it was posted. */
    private boolean post(long id, int lane, Slot slot, int sub, OpState op, IoPlan plan, int r) {
        if (!sendQueues[lane].tryAcquireCredit()) {
            return false;
        }
        WorkRequest wr = new WorkRequest().wrId(WrIds.encode(WrIds.IO, lane, slot.index, sub, op.seq))
                .opcode(op.kind == OpKind.READ ? Opcode.RDMA_READ : Opcode.RDMA_WRITE)
                .sge(plan.localAddress[r], plan.length[r], plan.localKeyOn(r, lane))
                .remote(plan.remoteAddress[r], plan.remoteKeyOn(r, lane));
        try {
            sendQueues[lane].post(wr, slot.index, sub, true, false); // signaled: no later request need cover it
        } catch (RuntimeException e) {
            sendQueues[lane].releaseCredit();
            return false;
        }
        slot.subQp[sub] = lane;
        stats.reissued.increment();
        return true;
    }

    /** Requests parked until a lane is back (diagnostics). */
    int parked() {
        return parked.size();
    }

    /**
     * A lane came back or was given up ({@link LaneRecovery}): the requests parked while no lane was
     * live run on a live one now; with none live and none being re-established, they fail (their
     * lane's flush status). Any thread.
     */
    void lanesChanged() {
        parked.lanesChanged();
    }

    /** A parked request may run: re-issued on {@code lane}, or failed (−1, or no credit there, or its op ended). */
    private void runParked(long id, int lane) {
        Slot slot = pool.slot(WrIds.slot(id));
        int sub = WrIds.sub(id);
        OpState op = slot.tenant();
        IoPlan plan = op == null ? null : op.plan;
        boolean posted = lane >= 0 && plan != null && !op.isDone() && !op.hasFailed() && WrIds.tagMatches(id, op.seq)
                && post(id, lane, slot, sub, op, plan, slot.subRequest[sub]);
        if (!posted) {
            settle(WrIds.qp(id), slot, sub, id, true, WcStatus.WR_FLUSH_ERR);
        }
    }
}
