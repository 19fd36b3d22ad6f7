package io.slime4j.endpoint;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.util.ArrayList;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.function.Consumer;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Two-sided send/recv: eager up to the eager threshold ({@link EagerPath}), by rendezvous above it.
 * Every send and every recv gets the next message sequence number of its side: the k-th send is
 * message k and pairs with the k-th recv (the pair-ordering contract); metas carry it, and eager
 * messages carry it in their immediate. The rendezvous: {@code recv} leases a recv slot and SENDs a 32-byte meta
 * message (address, key, length of its buffer, and a token naming the slot) on the meta queue pair.
 * At the sender, the dispatch thread copies each meta out of its meta-window receive and re-posts
 * it (I5); metas and {@code send} calls are matched in order — the k-th send gets the k-th meta
 * (the pair-ordering contract). The matched send RDMA_WRITE_WITH_IMMs its data straight into the
 * receiver's buffer on the data queue pair, the token in the immediate; that consumes a receive of
 * the receiver's data window, whose dispatch ({@link MessageCompletions}) finds the recv slot from
 * the token, re-posts the receive, and completes the recv. This class holds the callers' side and
 * the matching; the meta window's dispatch feeds the matching. A recv no longer than the eager
 * threshold sends no meta (only eager messages fit it); a send's meta that arrives for a message this
 * side sent eagerly is dropped.
 *
 * <p>A recv slot expects two completions (its meta SEND, the data arrival); a send slot one (its
 * data request). A send longer than the matched receive writes nothing and both fail with
 * LOC_LEN_ERR; a cancelled send that gets matched later writes nothing and tells the receiver
 * (REM_ABORT_ERR), and a send matched with a recv the peer cancelled ({@link CancelNotices}) fails
 * with REM_ABORT_ERR and writes nothing — so the pairing never slips.
 *
 * <p>Ordering ({@link Ordering}): a send's data leaves through its {@link OrderGate} — only after
 * every one-sided op posted before the send has settled (its bytes are placed at the peer), and
 * after the previous send's data left, so sends arrive in call order. An earlier op that failed
 * still counts as settled: its own future reports the failure.
 */
final class MessagePath {
    private final Lifecycle lifecycle;
    private final String name;
    private final Regions regions;
    private final Router router;
    private final Transport transport;
    private final OpTracker tracker;
    private final EndpointHooks hooks;
    private final BackPressure backPressure;
    private final SlotReleaser releaser;
    private final Anomalies anomalies;
    private final Stats stats;
    private final SlotPool sendPool;
    private final SlotPool recvPool;
    private final Ordering ordering;
    /** The gate of the latest send: the next one leaves after it (guarded by {@link #lock}). */
    private OrderGate lastGate;
    private final ReentrantLock lock = new ReentrantLock();
    /** Rendezvous sends waiting for their meta, and metas waiting for their send, by message number (guarded by {@link #lock}). */
    private final HashMap<Integer, Slot> waitingSends = new HashMap<>();
    private final HashMap<Integer, Wire32.Meta> metas = new HashMap<>();
    /** The next send's message number (guarded by {@link #lock}). */
    private int nextSend;
    /** The next recv's message number without eager messages (with them, {@link Unexpected} numbers recvs). */
    private final java.util.concurrent.atomic.AtomicInteger nextRecv = new java.util.concurrent.atomic.AtomicInteger();
    private final EagerPath eager;
    /** Tokens of queued metas whose recv the peer cancelled (guarded by {@link #lock}). */
    private final java.util.HashSet<Integer> cancelledMetas = new java.util.HashSet<>();
    /** Set when the endpoint failed: no send waits for a meta any more (guarded by {@link #lock}). */
    private String failed;
    private WcStatus failedStatus;
    /** Each recv slot's one meta post, refilled per lease (posting copies it), so a message allocates none. */
    private final WorkRequest[] recvWrs;
    /** Per send slot, the action of its send's gate ({@link #leave}), made once instead of per send. */
    private final Consumer<String>[] leaveActions;
    /** Writes a matched rendezvous send's data into the peer's buffer. */
    private final RendezvousWriter rendezvous;

    /** Dispatches the meta window's arrivals (metas, cancel notices, credits, lane messages). */
    private final MetaWindow metaWindow;
    /** Tells the peer about cancelled recvs; a recv hands it its posted meta. */
    private final CancelNotices notices;

    MessagePath(Lifecycle lifecycle, EndpointConfig config, Regions regions, Router router, Transport transport,
                OpTracker tracker, EndpointHooks hooks, BackPressure backPressure, SlotReleaser releaser,
                Anomalies anomalies, Stats stats, ImmRecvPath imm, Ordering ordering, LaneRecovery lanes) {
        this.lifecycle = lifecycle;
        this.name = lifecycle.name();
        this.regions = regions;
        this.router = router;
        this.transport = transport;
        this.tracker = tracker;
        this.hooks = hooks;
        this.backPressure = backPressure;
        this.releaser = releaser;
        this.anomalies = anomalies;
        this.stats = stats;
        this.ordering = ordering;
        int n = config.messageSlots();
        this.sendPool = new SlotPool(name + " send", n, 1, 0);
        this.recvPool = new SlotPool(name + " recv", n, 1, Transport.recvMetaBase());
        this.recvWrs = new WorkRequest[n];
        @SuppressWarnings("unchecked")
        Consumer<String>[] leaves = new Consumer[n];
        for (int i = 0; i < n; i++) {
            recvWrs[i] = new WorkRequest();
            Slot s = sendPool.slot(i);
            leaves[i] = earlierFailure -> leave(s);
        }
        this.leaveActions = leaves;
        this.rendezvous = new RendezvousWriter(name, router, transport, releaser, sendPool, n);
        this.notices = new CancelNotices(lifecycle, transport, recvPool, releaser, anomalies);
        this.metaWindow = new MetaWindow(transport, hooks, anomalies, imm, lanes, this);
        this.eager = new EagerPath(lifecycle, config, transport, router, sendPool, recvPool, releaser, anomalies, stats,
                backPressure);
    }

    EagerPath eager() {
        return eager;
    }

    CancelNotices cancelNotices() {
        return notices;
    }

    SlotPool sendPool() {
        return sendPool;
    }

    SlotPool recvPool() {
        return recvPool;
    }

    TransferFuture send(String region, long offset, long length) {
        lifecycle.checkUsable();
        MemoryRegion mr = regions.local(region, offset, length, 0, "send");
        if (length > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("endpoint " + name + ": a message is at most 2^31-1 bytes, was "
                    + length + "; use write for larger transfers");
        }
        int threshold = eager.threshold();
        boolean eagerSend = threshold > 0 && length <= threshold;
        if (eagerSend) {
            eager.acquireCredit();
        }
        Slot slot;
        OpState op;
        try {
            slot = backPressure.lease(sendPool, -1, "send");
            op = tracker.newOp(OpKind.SEND, length);
            useRegion(op, region, sendPool, slot);
        } catch (RuntimeException e) {
            if (eagerSend) {
                eager.giveBack();
            }
            throw e;
        }
        slot.lease(op, 1, hooks.slotHoldsOpStrongly());
        op.addPart();
        slot.localAddress = mr.address() + offset;
        slot.localKey = mr.localKey();
        slot.length = length;
        slot.meta = null;
        slot.eager = false;
        slot.recvCancelled = false;
        // the slot's gate, made at its first send and reused once it fired: the gate's last release
        // runs the slot's leave action before it marks itself fired, so a slot can come back (and
        // be leased here) while its gate is still firing; such a slot gets a fresh gate
        OrderGate gate = slot.gate;
        Wire32.Meta meta;
        boolean recvCancelled;
        String failure;
        lock.lock();
        try { // renewed under the lock, so no other send can chain to it as the last gate meanwhile
            if (gate == null || !gate.fired()) {
                slot.gate = gate = new OrderGate(2, leaveActions[slot.index]); // the caller's hold and the match's
            } else {
                gate.reset(2);
            }
            if (lastGate != null && lastGate != gate) { // the same gate as the last: it fired already
                lastGate.chain(gate); // sends leave in call order
            }
            lastGate = gate;
            failure = failed;
            int k = nextSend++ & Wire32.SEQ_MASK;
            slot.msgSeq = k;
            // an empty map is not asked: its key would be boxed, an Integer per eager send (no metas come for small recvs)
            meta = failure == null && !metas.isEmpty() ? metas.remove(k) : null;
            recvCancelled = meta != null && cancelledMetas.remove(meta.token());
            if (meta == null && failure == null && !eagerSend) {
                waitingSends.put(k, slot);
            }
        } finally {
            lock.unlock();
        }
        ordering.holdOnEarlierIo(gate); // the caller's hold keeps it shut until here
        if (failure != null) { // the endpoint failed after the check above: no meta will come
            op.failNow(failedStatus, failure);
            if (eagerSend) {
                eager.giveBack();
            }
            matched(slot, null, false);
        } else if (eagerSend) {
            if (meta != null) {
                stats.metasUnneeded.increment(); // a large recv's meta: this message goes eagerly
            }
            slot.eager = true;
            slot.caller = Thread.currentThread(); // until the call returns (below)
            matched(slot, null, recvCancelled);
        } else if (meta != null) {
            matched(slot, meta, recvCancelled);
        } else if (threshold > 0) {
            eager.wantNotice(slot); // a small recv sends no meta: tell it this message waits for one
        }
        try {
            ordering.posted(op);
            gate.release();
        } finally {
            slot.caller = null;
        }
        op.partDone();
        return op.future();
    }

    /**
     * A send met its meta (or, with a null meta, never will): its data leaves once its gate opens —
     * after every earlier one-sided op settled and the previous send left.
     */
    private void matched(Slot slot, Wire32.Meta meta, boolean recvCancelled) {
        slot.meta = meta;
        slot.recvCancelled = recvCancelled;
        slot.gate.release();
    }

    /**
     * The gate of a send opened (every earlier one-sided op settled, however it ended; the previous
     * send left): write its data, or say why not; a send never matched gives its slot back.
     */
    private void leave(Slot slot) {
        if (slot.eager) {
            // on a busy-polling device the post runs a cycle here, whose completions this thread then
            // handles (as an io post does) instead of waking the dispatch thread for them
            OpState op = slot.tenant();
            RailDrain d = op == null ? null : tracker.drainer(op);
            // the sender's own post, inside its call and not while handling completions: on a single rail it
            // may go with what this thread posts or waits for next (WorkRequest.more)
            boolean more = slot.caller == Thread.currentThread() && tracker.postsMore(d);
            boolean handles = d != null && d.beginPosting();
            try {
                eager.postEager(slot, more);
            } finally {
                if (handles) {
                    d.endPosting();
                }
            }
            return;
        }
        Wire32.Meta meta = slot.meta;
        if (meta == null) {
            releaser.countDown(sendPool, slot, 1);
            return;
        }
        rendezvous.post(slot, meta, slot.recvCancelled);
    }

    TransferFuture recv(String region, long offset, long length) {
        lifecycle.checkUsable();
        MemoryRegion mr = regions.local(region, offset, length, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE,
                "recv");
        Slot slot = backPressure.lease(recvPool, -1, "recv");
        OpState op = tracker.newOp(OpKind.RECV, 0);
        useRegion(op, region, recvPool, slot);
        int threshold = eager.threshold();
        slot.small = threshold > 0 && length <= threshold;
        slot.lateMeta = false;
        slot.length = length;
        slot.recvSegment = threshold > 0 ? mr.segment() : null; // bounds checked here by regions.local
        slot.recvOffset = offset;
        slot.lease(op, slot.small ? 1 : 2, hooks.slotHoldsOpStrongly());
        op.addPart();
        MemoryRegion control = transport.control;
        MemorySegment metaBuffer = slot.metaBuffer;
        if (metaBuffer == null) { // the slot's place in the control region never moves: one slice per slot
            slot.metaBuffer = metaBuffer = control.segment().asSlice(slot.metaOffset, Wire32.META_BYTES);
        }
        if (threshold > 0) {
            Wire32.writeMeta(metaBuffer, 0, Wire32.token(slot.index, op.seq), mr.address() + offset,
                    mr.remoteKey(), length, 0); // numbered below, before anything can answer it
            if (!eager.posted(slot, op, metaBuffer)) {
                op.partDone(); // answered by what arrived already, or small: no meta
                return op.future();
            }
        } else {
            slot.msgSeq = nextRecv.getAndIncrement() & Wire32.SEQ_MASK;
            Wire32.writeMeta(metaBuffer, 0, Wire32.token(slot.index, op.seq), mr.address() + offset,
                    mr.remoteKey(), length, slot.msgSeq);
        }
        router.select(QpOpType.CONTROL, op.seq); // the meta queue pair: lane 0 (Router counts other answers)
        WorkRequest wr = recvWrs[slot.index].clear().wrId(WrIds.encode(WrIds.META_SEND, 0, slot.index, 0, op.seq))
                .opcode(Opcode.SEND_WITH_IMM).immediate(Wire32.metaImm(Wire32.META_TYPE, 0))
                .sge(control, slot.metaOffset, Wire32.META_BYTES);
        RuntimeException refused = null;
        try {
            transport.meta.postSend(wr);
        } catch (RuntimeException e) {
            op.fail(WcStatus.GENERAL_ERR, "endpoint " + name + ": posting the meta of recv op " + op.seq
                    + " failed: " + e.getMessage());
            releaser.countDown(recvPool, slot, 2);
            refused = e;
        }
        if (refused == null) {
            notices.metaPosted(slot, op); // cancelled meanwhile: the notice follows the meta
        }
        op.partDone();
        if (refused != null) {
            throw refused;
        }
        return op.future();
    }

    /** The op uses {@code region} until it settles; if it is being deregistered, the call is refused. */
    private void useRegion(OpState op, String region, SlotPool pool, Slot slot) {
        try {
            regions.use(op, region);
        } catch (IllegalArgumentException e) {
            pool.release(slot); // leased from the ring, not yet to the op
            op.failNow(WcStatus.GENERAL_ERR, e.getMessage());
            op.partDone();
            throw e;
        }
    }

    /** Dispatch thread: a meta-window receive completed ({@link MetaWindow}). */
    void onMetaWindow(WorkCompletion wc) {
        metaWindow.onCompletion(wc);
    }

    /**
     * The peer cancelled the recv that sent the meta with {@code token}: if that meta still waits for
     * a send, the send it is matched with fails (REM_ABORT_ERR) and writes nothing. If it was matched
     * already, its data is on the way and the notice changes nothing.
     */
    void cancelQueuedMeta(int token) {
        stats.cancelNoticesReceived.increment();
        lock.lock();
        try {
            for (Wire32.Meta m : metas.values()) {
                if (m.token() == token) {
                    cancelledMetas.add(token);
                    return;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    void offerMeta(Wire32.Meta meta) {
        Slot slot;
        lock.lock();
        try {
            int k = meta.seq() & Wire32.SEQ_MASK;
            slot = waitingSends.remove(k);
            if (slot == null) {
                if (((k - nextSend) & Wire32.SEQ_MASK) >= (1 << 27)) {
                    stats.metasUnneeded.increment(); // message k was sent already, eagerly
                    return;
                }
                metas.put(k, meta);
            }
        } finally {
            lock.unlock();
        }
        if (slot != null) {
            matched(slot, meta, false); // matched on arrival: a cancel notice can only come after it
        }
    }

    /**
     * The endpoint failed: sends that never met a meta never will; they fail with {@code status}
     * (if nothing completed them yet) and their slots go back now, and a send racing with this fails
     * at its call.
     */
    void failAll(WcStatus status, String why) {
        List<Slot> drained;
        lock.lock();
        try {
            failed = why;
            failedStatus = status;
            drained = new ArrayList<>(waitingSends.values());
            waitingSends.clear();
        } finally {
            lock.unlock();
        }
        for (Slot s : drained) {
            OpState op = s.tenant();
            if (op != null) {
                op.failNow(status, why);
            }
            matched(s, null, false);
        }
        eager.end();
    }

    /** Closing: sends that never met a meta will not; their slots go back now. */
    void releaseUnmatched() {
        List<Slot> drained;
        lock.lock();
        try {
            drained = new ArrayList<>(waitingSends.values());
            waitingSends.clear();
        } finally {
            lock.unlock();
        }
        for (Slot s : drained) {
            matched(s, null, false);
        }
        eager.end();
    }
}
