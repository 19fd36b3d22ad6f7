package io.slime4j.endpoint;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkRequest;
import java.util.List;

/**
 * One-sided operations, the caller's side: read, write and write-with-imm of a batch. The caller's
 * thread plans the batch, leases io slots one after another (back-pressure: it waits, bounded, for
 * a free slot and for send-queue credit of each queue pair) and posts through each queue pair's
 * {@link IoSendQueue}, which signals only some requests. {@link IoCompletions} retires them on the
 * dispatch thread. The op completes when its last slot has been released and the caller has
 * finished posting.
 *
 * <p>Write-with-imm: when every request went to one queue pair, the last request carries the
 * immediate (RC order delivers it after the data). Otherwise an {@link ImmFence} reserves a position
 * for a separate zero-length immediate, which {@link DeferredImm} posts once every data request
 * completed. On several lanes a write-with-imm posted while earlier one-sided ops are in flight is
 * ordered ({@link Ordering}): its fence also counts their settling, even when its own data went to
 * one queue pair.
 *
 * <p>Posting that stops early (no slot or credit within the bound, interruption, close, a refused
 * post) throws {@link StopPosting} out of the posting loop; {@link #submit} handles it in one place:
 * the op fails with the reason, what it posted is covered, and the call throws when nothing reached
 * the wire.
 */
final class IoPath {
    private final Lifecycle lifecycle;
    private final EndpointConfig config;
    private final Regions regions;
    private final Router router;
    private final Transport transport;
    private final OpTracker tracker;
    private final EndpointHooks hooks;
    private final BackPressure backPressure;
    private final SlotReleaser releaser;
    private final ImmRecvPath imm;
    private final DeferredImm deferred;
    private final SlotPool pool;
    private final IoSendQueue[] sendQueues;
    private final Ordering ordering;
    private final IoPlanPool plans;
    /** Bytes per work request at most: the setting, or else the devices' preference. */
    private final int maxRequestBytes;

    IoPath(Lifecycle lifecycle, EndpointConfig config, Regions regions, Router router, Transport transport,
           OpTracker tracker, EndpointHooks hooks, BackPressure backPressure, SlotReleaser releaser, ImmRecvPath imm,
           DeferredImm deferred, SlotPool pool, IoSendQueue[] sendQueues, Ordering ordering) {
        this.lifecycle = lifecycle;
        this.config = config;
        this.regions = regions;
        this.router = router;
        this.transport = transport;
        this.tracker = tracker;
        this.hooks = hooks;
        this.backPressure = backPressure;
        this.releaser = releaser;
        this.imm = imm;
        this.deferred = deferred;
        this.pool = pool;
        this.sendQueues = sendQueues;
        this.ordering = ordering;
        this.plans = new IoPlanPool(transport, sendQueues.length, config.ioSlots());
        this.maxRequestBytes = config.maxRequestBytes() > 0 ? config.maxRequestBytes() : transport.preferredRequestBytes();
    }

    TransferFuture submit(OpKind kind, List<Assignment> batch, int immediate) {
        lifecycle.checkUsable();
        IoPlan plan = plans.take();
        try {
            plan.fill(kind, batch, regions, router, maxRequestBytes,
                    transport.io[0].config().mtu()); // the MTU the device chose
        } catch (RuntimeException e) { // misuse: the plan goes back unused
            plan.recycle();
            throw e;
        }
        if (kind == OpKind.WRITE_WITH_IMM) {
            imm.acquirePeerCredit();
        }
        OpState op = tracker.newOp(kind, plan.totalBytes);
        try {
            regions.use(op, plan.localNames, plan.localNameCount, plan.use);
        } catch (IllegalArgumentException e) { // a region of the batch is being deregistered
            op.failNow(WcStatus.GENERAL_ERR, e.getMessage());
            op.partDone();
            plan.recycle();
            if (kind == OpKind.WRITE_WITH_IMM) {
                imm.returnPeerCredit();
            }
            throw e;
        }
        // one lane: RC orders the immediate after every earlier request already; several: it waits
        boolean ordered = kind == OpKind.WRITE_WITH_IMM && sendQueues.length > 1 && ordering.ioInFlight();
        IoBatch b = plan.batch.reset(op, plan, immediate, ordered);
        op.fence = b.fence;
        op.plan = plan;
        op.rail = plan.rail;
        // once per op, not per request: the caller's own post (not one made while handling completions)
        // waits or posts again soon, so a busy-polling device may send it with what follows (WorkRequest.more)
        b.rail = tracker.drainer(op);
        b.more = tracker.postsMore(b.rail);
        if (ordered) {
            holdForEarlier(b);
        }
        RuntimeException refusal = null;
        try {
            while (b.next < b.positions) {
                postSlot(b, leaseSlot(b));
            }
            if (b.fence != null && b.fence.slot >= 0) {
                reserveFenceCredit(b);
            }
        } catch (StopPosting stop) {
            op.fail(stop.status, lifecycle.name() + ": " + kind + " op " + op.seq + " stopped after posting "
                    + b.dataPosted + " of " + plan.count + " requests: " + stop.reason);
            coverQps(b.lastOnQp); // what it posted unsignaled must still be retired
            refusal = stop.refusal;
        }
        if (kind == OpKind.WRITE_WITH_IMM && b.fence == null && !b.inlineImmPosted) {
            imm.returnPeerCredit();
        }
        if (b.fence != null && b.fence.arrive(plan.count - b.dataPosted + 1)) {
            deferred.fire(op, b.fence);
        }
        ordering.posted(op);
        int posted = b.dataPosted;
        op.partDone(); // from here the plan (and b) may be back in the pool and another op's
        if (refusal != null && posted == 0) {
            throw refusal; // nothing reached the wire: refuse the call instead of returning a failed future
        }
        return op.future();
    }

    /**
     * An ordered write-with-imm: its fence also waits until every one-sided op posted before it has
     * settled — succeeded, failed or cancelled: an earlier op's failure is reported by that op's own
     * future, and does not hold back or fail this one.
     */
    private void holdForEarlier(IoBatch b) {
        OpState op = b.op;
        ImmFence fence = b.fence;
        OrderGate gate = new OrderGate(1, earlierFailure -> {
            if (fence.arrive(1)) {
                deferred.fire(op, fence);
            }
        });
        ordering.holdOnEarlierIo(gate);
        gate.release();
    }

    /** The next io slot, waiting (bounded) when none is free — after covering what the op holds. */
    private Slot leaseSlot(IoBatch b) throws StopPosting {
        try {
            Slot slot = pool.tryAcquire();
            if (slot == null) { // about to wait: slots this op holds must not wait on unsignaled tails
                coverQps(b.lastOnQp);
                slot = backPressure.slot(pool, b.op.rail);
            }
            if (slot == null) {
                String why = "no free io slot (" + pool.capacity() + " in the pool)";
                throw new StopPosting(why, backPressure.busy(why + " for " + b.op.kind + " op " + b.op.seq));
            }
            return slot;
        } catch (InterruptedException e) {
            throw interrupted(e);
        } catch (EndpointClosedException e) {
            throw new StopPosting("the endpoint closed while the op was being posted", e);
        } catch (EndpointException e) { // the pool was failed with the endpoint
            throw StopPosting.endpointFailed(lifecycle.name(), lifecycle.failure(), lifecycle.failureStatus());
        }
    }

    /**
     * Fills one leased slot with the batch's next positions and posts them. The slot expects one
     * count-down per position plus one for the caller's guard; whatever was not posted (and the
     * guard) is counted down here, even when posting stops.
     */
    private void postSlot(IoBatch b, Slot slot) throws StopPosting {
        int inSlot = Math.min(config.requestsPerSlot(), b.positions - b.next);
        slot.lease(b.op, inSlot + 1, hooks.slotHoldsOpStrongly());
        b.op.addPart();
        b.filledInSlot = 0;
        try {
            for (; b.filledInSlot < inSlot; b.filledInSlot++) {
                int r = b.next + b.filledInSlot;
                if (r == b.plan.count) { // the fence's reserved position: always the last one
                    b.fence.sub = b.filledInSlot;
                    slot.subRequest[b.filledInSlot] = -1;
                    b.fence.slot = slot.index;
                    continue;
                }
                postRequest(b, slot, b.filledInSlot, r, b.next + inSlot);
            }
        } finally {
            b.next += inSlot;
            releaser.countDown(pool, slot, 1 + inSlot - b.filledInSlot); // the guard and what was not posted
        }
    }

    /**
     * The largest request whose post this thread handles the completion of, where a post may
     * complete at once ({@link RailDrain#beginPosting}). The rail's other completions wait meanwhile
     * (the dispatch thread stands aside), for as long as the copy inside the post takes: about
     * 100-200 microseconds at this size. A larger copy leaves its completion to the dispatch thread,
     * whose wake-up is then under a tenth of the copy. Below it the dispatch thread costs a quarter
     * of a 1 MiB write's rate: its retire waits for the send queue's lock, which the poster holds
     * across its next copy (docs/PERFORMANCE.md, "The fifth 2026-11-27 round").
     */
    static final int HANDLED_BY_POSTER_MAX_BYTES = 4 << 20;

    /** Posts plan request {@code r} at position {@code sub} of {@code slot}, with a credit of its queue pair. */
    private void postRequest(IoBatch b, Slot slot, int sub, int r, int slotEnd) throws StopPosting {
        int q = b.plan.qp[r];
        IoSendQueue sq = sendQueues[q];
        takeCredit(b, sq);
        boolean carriesImm = b.carriesImm(r);
        WorkRequest wr = b.wr.clear().wrId(WrIds.encode(WrIds.IO, q, slot.index, sub, b.op.seq))
                .opcode(b.op.kind == OpKind.READ ? Opcode.RDMA_READ
                        : carriesImm ? Opcode.RDMA_WRITE_WITH_IMM : Opcode.RDMA_WRITE)
                .sge(b.plan.localAddress[r], b.plan.length[r], b.plan.localKey[r])
                .remote(b.plan.remoteAddress[r], b.plan.remoteKey[r]).immediate(carriesImm ? b.immediate : 0);
        slot.subQp[sub] = q;
        slot.subLength[sub] = b.plan.length[r];
        slot.subRequest[sub] = r;
        // a request the post may complete at once (a copy on the shm device) is handled by this thread
        RailDrain drain = b.plan.length[r] <= HANDLED_BY_POSTER_MAX_BYTES ? b.rail : null;
        wr.more(b.more);
        try {
            sq.post(wr, slot.index, sub, r == b.lastOnQp[q], b.nextOnQp[r] >= slotEnd && pool.free() == 0, drain);
        } catch (RuntimeException e) {
            sq.releaseCredit();
            throw new StopPosting("posting to io QP " + q + " failed: " + e.getMessage(), e);
        }
        b.dataPosted++;
        b.inlineImmPosted |= carriesImm;
    }

    /** A send-queue credit of {@code sq}, waiting (bounded); close wakes the wait with spare credits. */
    private void takeCredit(IoBatch b, IoSendQueue sq) throws StopPosting {
        boolean got;
        try {
            got = sqCredit(sq, b.op.rail);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
        if (!got) {
            String why = "no send-queue credit on io QP " + sq.index;
            throw new StopPosting(why, backPressure.busy(why + " for " + b.op.kind + " op " + b.op.seq));
        }
        if (lifecycle.isClosing()) {
            throw new StopPosting("the endpoint closed while the op was being posted",
                    new EndpointClosedException("endpoint " + lifecycle.name() + " is closed"));
        }
        String failure = lifecycle.failure();
        if (failure != null) { // a failure wakes credit waiters with spare credits, too
            throw StopPosting.endpointFailed(lifecycle.name(), failure, lifecycle.failureStatus());
        }
    }

    /** Every data request is posted: take the credit the deferred immediate will need, or fail the op. */
    private void reserveFenceCredit(IoBatch b) {
        ImmFence fence = b.fence;
        try {
            fence.sqCreditHeld = sqCredit(sendQueues[fence.qp], b.op.rail);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!fence.sqCreditHeld) {
            b.op.fail(WcStatus.GENERAL_ERR, lifecycle.name() + ": no send-queue credit for the immediate of op " + b.op.seq);
        }
    }

    /** A send-queue credit of {@code sq} for an op on {@code rail}: at once if free, else within the bound. */
    private boolean sqCredit(IoSendQueue sq, int rail) throws InterruptedException {
        return sq.tryAcquireCredit() // no wait, nothing allocated
                || backPressure.permit(rail, () -> sq.availableCredits() > 0, sq::tryAcquireCredit, sq::acquireCredit);
    }

    private StopPosting interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        String why = "interrupted while waiting for a slot or credit";
        return new StopPosting(why, new EndpointException("endpoint " + lifecycle.name() + ": " + why, e));
    }

    /** Covers the unsignaled tail of every queue pair the op uses (see {@link IoSendQueue#cover}). */
    private void coverQps(int[] lastOnQp) {
        for (int q = 0; q < sendQueues.length; q++) {
            if (lastOnQp[q] >= 0) {
                sendQueues[q].cover();
            }
        }
    }
}
