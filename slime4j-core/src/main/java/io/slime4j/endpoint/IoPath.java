package io.slime4j.endpoint;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.util.List;

/**
 * One-sided operations: read, write and write-with-imm of a batch. The caller's thread plans the
 * batch, leases io slots one after another (back-pressure: it waits, bounded, for a free slot and
 * for send-queue credit of each queue pair) and posts through each queue pair's
 * {@link IoSendQueue}, which signals only some requests; the dispatch thread retires every request
 * a completion covers, counts them per slot and releases each slot after its last one. The op
 * completes when its last slot has been released and the caller has finished posting.
 *
 * <p>Write-with-imm: when every request went to one queue pair, the last request carries the
 * immediate (RC order delivers it after the data). Otherwise an {@link ImmFence} posts a separate
 * zero-length immediate once every data request completed.
 */
final class IoPath {
    private final EndpointCore core;
    private final SlotPool pool;
    private final ImmRecvPath imm;
    private final IoSendQueue[] sendQueues;

    IoPath(EndpointCore core, ImmRecvPath imm) {
        this.core = core;
        this.imm = imm;
        this.pool = new SlotPool(core.name + " io", core.config.ioSlots(), core.config.requestsPerSlot(), 0);
        this.sendQueues = new IoSendQueue[core.config.qps()];
        for (int q = 0; q < sendQueues.length; q++) {
            sendQueues[q] = new IoSendQueue(q, core.transport.io[q], core.transport.sqCredits[q],
                    core.config.sendQueueDepth(), core.config.signalEvery(), core::isClosing);
        }
    }

    IoSendQueue[] sendQueues() {
        return sendQueues;
    }

    SlotPool pool() {
        return pool;
    }

    TransferFuture submit(OpKind kind, List<Assignment> batch, int immediate) {
        core.checkUsable();
        IoPlan plan = IoPlan.of(kind, batch, core.regions, core.router, core.transport, core.config.maxRequestBytes(),
                core.transport.io[0].config().mtu()); // the MTU the device chose
        boolean withImm = kind == OpKind.WRITE_WITH_IMM;
        if (withImm) {
            imm.acquirePeerCredit();
        }
        OpState op = core.tracker.newOp(kind, plan.totalBytes);
        int[] lastOnQp = IoSendQueue.lastIndexPerQp(plan.qp, plan.count, sendQueues.length);
        int[] nextOnQp = IoSendQueue.nextIndexOnSameQp(plan.qp, plan.count, sendQueues.length);
        boolean deferred = withImm && !plan.singleQp;
        ImmFence fence = deferred ? new ImmFence(plan.count, immediate, plan.immQp, plan.immAddress, plan.immKey) : null;
        op.fence = fence;
        op.plan = plan;
        int total = plan.count + (deferred ? 1 : 0);
        int rps = core.config.requestsPerSlot();
        int next = 0;
        int dataPosted = 0;
        boolean immPosted = false;
        String failure = null;
        RuntimeException refusal = null;
        WorkRequest wr = new WorkRequest();
        try {
            while (next < total && failure == null) {
                Slot slot = pool.acquire(0);
                if (slot == null) { // about to wait: slots this op holds must not wait on unsignaled tails
                    coverQps(lastOnQp);
                    slot = pool.acquire(core.slotTimeoutNanos);
                }
                if (slot == null) {
                    failure = "no free io slot (" + pool.capacity() + " in the pool)";
                    refusal = core.busy(failure + " for " + kind + " op " + op.seq);
                    break;
                }
                int inSlot = Math.min(rps, total - next);
                slot.lease(op, inSlot + 1, core.hooks.slotHoldsOpStrongly());
                op.addPart();
                int done = 0;
                for (; done < inSlot; done++) {
                    int r = next + done;
                    if (r == plan.count) { // the fence's reserved position: always the last one
                        fence.sub = done;
                        slot.subRequest[done] = -1;
                        fence.slot = slot.index;
                        continue;
                    }
                    int q = plan.qp[r];
                    if (!core.acquire(core.transport.sqCredits[q])) {
                        failure = "no send-queue credit on io QP " + q;
                        refusal = core.busy(failure + " for " + kind + " op " + op.seq);
                        break;
                    }
                    if (core.isClosing()) { // close() wakes credit waiters with spare permits
                        failure = "the endpoint closed while the op was being posted";
                        refusal = new EndpointClosedException("endpoint " + core.name + " is closed");
                        break;
                    }
                    boolean carriesImm = withImm && !deferred && r == plan.count - 1;
                    wr.clear().wrId(WrIds.encode(WrIds.IO, q, slot.index, done, op.seq))
                            .opcode(kind == OpKind.READ ? Opcode.RDMA_READ
                                    : carriesImm ? Opcode.RDMA_WRITE_WITH_IMM : Opcode.RDMA_WRITE)
                            .sge(plan.localAddress[r], plan.length[r], plan.localKey[r])
                            .remote(plan.remoteAddress[r], plan.remoteKey[r]).immediate(carriesImm ? immediate : 0);
                    slot.subQp[done] = q;
                    slot.subLength[done] = plan.length[r];
                    slot.subRequest[done] = r;
                    try {
                        sendQueues[q].post(wr, slot.index, done, r == lastOnQp[q],
                                nextOnQp[r] >= next + inSlot && pool.free() == 0);
                    } catch (RuntimeException e) {
                        sendQueues[q].releaseCredit();
                        failure = "posting to io QP " + q + " failed: " + e.getMessage();
                        refusal = e;
                        break;
                    }
                    dataPosted++;
                    immPosted |= carriesImm;
                }
                next += inSlot;
                core.releaser.countDown(pool, slot, 1 + inSlot - done); // the guard and what was not posted
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "interrupted while waiting for a slot or credit";
            refusal = new EndpointException("endpoint " + core.name + ": " + failure, e);
        } catch (EndpointClosedException e) {
            failure = "the endpoint closed while the op was being posted";
            refusal = e;
        }
        if (failure != null) {
            op.fail(WcStatus.GENERAL_ERR, core.name + ": " + kind + " op " + op.seq + " stopped after posting "
                    + dataPosted + " of " + plan.count + " requests: " + failure);
            coverQps(lastOnQp); // what it posted unsignaled must still be retired
        }
        if (withImm && !deferred && !immPosted) {
            imm.returnPeerCredit();
        }
        if (fence != null) {
            if (failure == null && fence.slot >= 0) {
                try {
                    fence.sqCreditHeld = core.acquire(core.transport.sqCredits[fence.qp]);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (!fence.sqCreditHeld) {
                    op.fail(WcStatus.GENERAL_ERR, core.name + ": no send-queue credit for the immediate of op " + op.seq);
                }
            }
            if (fence.arrive(plan.count - dataPosted + 1)) {
                fire(op, fence);
            }
        }
        op.partDone();
        if (refusal != null && dataPosted == 0) {
            throw refusal; // nothing reached the wire: refuse the call instead of returning a failed future
        }
        return op.future();
    }

    /** Covers the unsignaled tail of every queue pair the op uses (see {@link IoSendQueue#cover}). */
    private void coverQps(int[] lastOnQp) {
        for (int q = 0; q < sendQueues.length; q++) {
            if (lastOnQp[q] >= 0) {
                sendQueues[q].cover();
            }
        }
    }

    /** Every data request of a deferred write-with-imm completed: post its immediate, or give back its reservations. */
    private void fire(OpState op, ImmFence f) {
        if (f.slot < 0) {
            imm.returnPeerCredit();
            return;
        }
        Slot slot = pool.slot(f.slot);
        if (op.hasFailed() || op.isDone() || !f.sqCreditHeld) {
            if (f.sqCreditHeld) {
                sendQueues[f.qp].releaseCredit();
            }
            dropImm(slot);
            return;
        }
        int q = f.qp;
        if (core.router.isDead(q)) { // its lane failed meanwhile: the immediate takes a live one
            int live;
            try {
                live = core.router.liveAfter(q);
            } catch (EndpointException e) {
                live = q; // no lane left: fail below (the credit of q is held, so tryAcquire cannot block)
            }
            if (live == q || !core.transport.sqCredits[live].tryAcquire()) {
                core.transport.sqCredits[q].release();
                op.fail(WcStatus.RETRY_EXC_ERR, core.name + ": lane " + q + " of the immediate of op " + op.seq
                        + " failed and no live lane had a send-queue credit free");
                dropImm(slot);
                return;
            }
            core.transport.sqCredits[q].release();
            q = live;
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
            op.fail(WcStatus.GENERAL_ERR, core.name + ": posting the immediate of op " + op.seq + " failed: " + e.getMessage());
            dropImm(slot);
        }
    }

    /** The fenced immediate will not leave: gives back its peer credit and counts its slot position down. */
    private void dropImm(Slot slot) {
        imm.returnPeerCredit();
        core.releaser.countDown(pool, slot, 1);
    }

    /**
     * Dispatch thread: a completion of an io request. It retires its own request and every older
     * unsignaled one on its queue pair ({@link IoSendQueue#retire}); each is counted on its slot.
     */
    void onCompletion(WorkCompletion wc) {
        long id = wc.wrId();
        int q = WrIds.qp(id);
        IoSendQueue sq = sendQueues[q];
        int n = sq.retire(WrIds.slot(id), WrIds.sub(id));
        if (n == 0) {
            core.protocolError("completion of an io request that is not outstanding: " + WrIds.toString(id) + " " + wc);
            return;
        }
        for (int k = 0; k < n - 1; k++) { // older unsignaled requests: they succeeded (RC completes in order)
            if (sq.retiredSlot[k] != IoSendQueue.COVER_SLOT) {
                settle(q, pool.slot(sq.retiredSlot[k]), sq.retiredSub[k], id, null);
            }
        }
        if (WrIds.slot(id) == IoSendQueue.COVER_SLOT) {
            return;
        }
        if (!wc.isSuccess() && reissue(wc)) {
            return; // failover: the request runs again on a live lane; its completion comes from there
        }
        settle(q, pool.slot(WrIds.slot(id)), WrIds.sub(id), id, wc);
    }

    /** One retired request: {@code wc} is its own completion, or null when a later one retired it. */
    private void settle(int q, Slot slot, int sub, long id, WorkCompletion wc) {
        OpState op = slot.tenant();
        if (op != null) {
            if (wc != null && !WrIds.tagMatches(id, op.seq)) {
                core.aliased(id, op);
            }
            if (wc != null && !wc.isSuccess()) {
                op.fail(wc.status(), core.name + ": " + op.kind + " op " + op.seq + ": request of " + slot.subLength[sub]
                        + " bytes on io QP " + q + " completed with " + wc.status());
            }
            ImmFence f = op.fence;
            if (f != null && !f.isImmRequest(slot.index, sub) && f.arrive(1)) {
                fire(op, f);
            }
        }
        core.releaser.countDown(pool, slot, 1);
    }

    /**
     * Failover (dispatch thread): a request that failed or was flushed on a lane taken out of the
     * rotation runs again on the next live lane, with the same slot position (so the slot's count
     * and the op's fence are untouched), when that is safe: plain reads and writes are idempotent; a
     * request carrying an immediate is not (the peer may have seen it), so its op fails instead.
     * Only a request the lane failed is re-issued — retries exhausted, or flushed behind another
     * failure; one the peer or the local side refused (a key, a length) would fail the same way on
     * every lane and take each down in turn, so its op fails. Needs a free send-queue credit on the
     * new lane (the dispatch thread never waits). Returns whether the request was re-posted.
     */
    private boolean reissue(WorkCompletion wc) {
        long id = wc.wrId();
        int q = WrIds.qp(id);
        WcStatus status = wc.status();
        if (core.isClosing() || !core.router.isDead(q)
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
            lane = core.router.liveAfter(q);
        } catch (EndpointException e) {
            return false;
        }
        if (!core.transport.sqCredits[lane].tryAcquire()) {
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
        core.stats.reissued.increment();
        return true;
    }
}
