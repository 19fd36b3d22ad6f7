package io.slime4j.endpoint;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Eager messages (issue 19, item 4): a {@code send} of at most the eager threshold goes in one trip,
 * a SEND on the data queue pair into a bounce buffer of the peer's data window, carrying its message
 * sequence number; the receiver copies it into the matching recv's buffer, or holds it
 * ({@link Unexpected}) until that recv is posted. A recv of at most the threshold sends no meta.
 * {@link MessagePath} decides which sends and recvs are eager and keeps the rendezvous; this class
 * posts eager messages and notices, takes arrivals, and owns the credits ({@link EagerCredits}).
 *
 * <p><b>Notices.</b> A rendezvous send (longer than the threshold) whose meta has not arrived sends
 * a zero-length NOTICE for its message number: a small recv (which sent no meta) answers it with its
 * meta after all, the send then finds that recv too short and both fail with LOC_LEN_ERR, as in the
 * rendezvous; a large recv ignores it (its meta is on the way). A notice needs a credit; one that
 * finds none waits in a queue, never blocking a thread, and goes when credits come back.
 *
 * <p><b>Completion.</b> An eager send completes when its SEND completed locally — acknowledged, so
 * its data is at the peer's endpoint — not when a recv took it (as UCX and libfabric's rxm). Its recv
 * completes when the data is copied. A cancelled send answers with an EAGER_CANCELLED message (its
 * recv fails REM_ABORT_ERR); a send matched with a recv the peer cancelled (its meta marked) fails
 * REM_ABORT_ERR and sends the same; a recv cancelled before its eager message arrived still takes it
 * (dropped, counted in {@link Stats#eagerDropped}), so the pairing never slips.
 */
final class EagerPath {
    private final String name;
    private final Lifecycle lifecycle;
    private final Transport transport;
    private final Router router;
    private final SlotPool sendPool;
    private final SlotPool recvPool;
    private final SlotReleaser releaser;
    private final Anomalies anomalies;
    private final Stats stats;
    private final BackPressure backPressure;
    private final int ownThreshold;
    private final int ownWindow;
    private volatile int threshold;
    private final EagerCredits credits;
    private final Unexpected unexpected;
    private final WorkRequest[] dataWrs;
    private final WorkRequest[] noticeWrs;
    private final WorkRequest creditWr = new WorkRequest();
    private final WorkRequest metaWr = new WorkRequest();
    private final NoticeQueue notices;

    EagerPath(Lifecycle lifecycle, EndpointConfig config, Transport transport, Router router, SlotPool sendPool,
              SlotPool recvPool, SlotReleaser releaser, Anomalies anomalies, Stats stats, BackPressure backPressure) {
        this.name = lifecycle.name();
        this.lifecycle = lifecycle;
        this.transport = transport;
        this.router = router;
        this.sendPool = sendPool;
        this.recvPool = recvPool;
        this.releaser = releaser;
        this.anomalies = anomalies;
        this.stats = stats;
        this.backPressure = backPressure;
        this.ownThreshold = config.eagerThreshold();
        this.ownWindow = EndpointConfig.eagerWindow(config.messageSlots());
        this.unexpected = new Unexpected(ownWindow, config.messageSlots());
        this.credits = new EagerCredits(this::returnCredits);
        this.notices = new NoticeQueue(credits, this::postNotice);
        if (ownThreshold > 0) {
            releaser.forgetOnRelease(recvPool, unexpected::forget);
        }
        this.dataWrs = new WorkRequest[sendPool.capacity()];
        this.noticeWrs = new WorkRequest[sendPool.capacity()];
        for (int i = 0; i < dataWrs.length; i++) {
            dataWrs[i] = new WorkRequest();
            noticeWrs[i] = new WorkRequest();
        }
    }

    /** At connect: both sides use the smaller threshold; the peer's eager window is this side's credit. */
    void connected(EndpointInfo peer) {
        int t = Math.min(ownThreshold, peer.eagerThreshold());
        if (t > 0) {
            credits.connected(EndpointConfig.eagerWindow(peer.messageSlots()), ownWindow);
        }
        threshold = t;
    }

    /** The threshold in effect (0 before connect and when either side has eager messages off). */
    int threshold() {
        return threshold;
    }

    EagerCredits credits() {
        return credits;
    }

    Unexpected unexpected() {
        return unexpected;
    }

    // ---- sending ----

    /** Takes a credit for an eager send, waiting up to {@code slotTimeout} (then {@link EndpointBusyException}). */
    void acquireCredit() {
        try {
            if (!credits.tryAcquire() // no wait, nothing allocated
                    && !backPressure.permit(-1, () -> credits.available() > 0, credits::tryAcquire, credits::acquire)) {
                throw backPressure.busy("no eager credit (the peer holds " + ownWindow
                        + " messages or notices of this endpoint that no recv has taken yet)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EndpointException("endpoint " + name + ": interrupted waiting for an eager credit", e);
        }
        try {
            lifecycle.checkUsable(); // close() and a failure wake waiters with spare permits
        } catch (RuntimeException e) {
            creditBack();
            throw e;
        }
    }

    /** A credit taken for a send that never went. */
    void giveBack() {
        creditBack();
    }

    /**
     * The gate of an eager send opened: its data (or its cancellation) leaves, with its credit;
     * {@code more}: posted by the sender's own call, which waits or posts again soon ({@link WorkRequest#more}).
     */
    void postEager(Slot slot, boolean more) {
        OpState op = slot.tenant();
        int kind = Wire32.EAGER_DATA;
        if (op == null || op.isDone()) {
            kind = Wire32.EAGER_CANCELLED;
        } else if (slot.recvCancelled) {
            kind = Wire32.EAGER_CANCELLED;
            op.fail(WcStatus.REM_ABORT_ERR, "endpoint " + name + ": the peer cancelled the recv matched with this "
                    + "send; nothing was sent");
        }
        long seq = op == null ? 0 : op.seq;
        router.select(QpOpType.RENDEZVOUS_DATA, seq); // the data queue pair: lane 0
        WorkRequest wr = dataWrs[slot.index].clear().wrId(WrIds.encode(WrIds.MSG_DATA, 0, slot.index, 0, seq))
                .opcode(Opcode.SEND_WITH_IMM).immediate(Wire32.eagerImm(kind, slot.msgSeq)).more(more);
        if (kind == Wire32.EAGER_DATA && slot.length > 0) {
            wr.sge(slot.localAddress, slot.length, slot.localKey);
        }
        try {
            transport.data.postSend(wr);
            stats.eagerSent.increment();
        } catch (RuntimeException e) {
            creditBack();
            if (op != null) {
                op.fail(WcStatus.GENERAL_ERR, "endpoint " + name + ": posting an eager send failed: " + e.getMessage());
            }
            releaser.countDown(sendPool, slot, 1);
        }
    }

    /**
     * A rendezvous send found no meta: a notice for its message goes once a credit is free (the slot
     * is held for it until then); dropped if the meta arrives first.
     */
    void wantNotice(Slot slot) {
        if (!slot.extend()) {
            return;
        }
        notices.add(slot);
    }

    private void postNotice(Slot s) {
        OpState op = s.tenant();
        if (s.meta != null || op == null) { // matched meanwhile: not needed
            creditBack();
            releaser.countDown(sendPool, s, 1);
            return;
        }
        WorkRequest wr = noticeWrs[s.index].clear().wrId(WrIds.encode(WrIds.NOTICE_SEND, 0, s.index, 0, op.seq))
                .opcode(Opcode.SEND_WITH_IMM).immediate(Wire32.eagerImm(Wire32.EAGER_NOTICE, s.msgSeq));
        try {
            transport.data.postSend(wr);
            stats.noticesSent.increment();
        } catch (RuntimeException e) {
            creditBack();
            releaser.countDown(sendPool, s, 1);
        }
    }

    /** Dispatch thread: a notice completed (sent or flushed). */
    void onNoticeSent(WorkCompletion wc) {
        releaser.countDown(sendPool, sendPool.slot(WrIds.slot(wc.wrId())), 1);
    }

    /**
     * Dispatch thread: the peer returned credits; waiting notices go first. More than this side spent
     * and got back is bad network input: dropped and counted.
     */
    void creditsReturned(int n) {
        if (!credits.returned(n)) {
            anomalies.protocolError("endpoint " + name + ": the peer returned " + n + " eager credits, more than "
                    + "it holds");
            return;
        }
        notices.back(n);
    }

    /** A credit taken and not spent comes back through {@link NoticeQueue#back}: waiting notices first. */
    private void creditBack() {
        credits.untake();
        notices.back(1);
    }

    // ---- receiving ----

    /**
     * A recv is posted ({@code slot} leased, its meta buffer written, {@code slot.small} and its buffer
     * set): numbers it and gives it what arrived for it already. Returns whether it must post its meta
     * now — a large recv not already answered.
     */
    boolean posted(Slot slot, OpState op, MemorySegment metaBuffer) {
        Unexpected.Held h = unexpected.post(slot, metaBuffer);
        if (h == null) {
            return !slot.small;
        }
        credits.consumed(1);
        if (h.kind() == Wire32.EAGER_NOTICE) {
            if (slot.small) {
                lateMeta(slot, op);
            }
            return !slot.small;
        }
        byte[] data = h.data();
        if (h.kind() == Wire32.EAGER_DATA && data.length <= slot.length && !op.isDone()) {
            MemorySegment.copy(data, 0, slot.recvSegment, ValueLayout.JAVA_BYTE, slot.recvOffset, data.length);
        }
        complete(slot, h.kind(), data.length, !slot.small);
        return false;
    }

    /**
     * Dispatch thread, before the receive is re-posted: matches an eager arrival with its recv and
     * copies the payload out of {@code bounce} (into the recv's buffer, or held). Returns the recv's
     * slot for {@link #finish}, null when held, or {@link Unexpected#STALE} when only the credit is to
     * be returned (a stale notice or a protocol error) — by {@link #finish}, once the receive was
     * re-posted (I5).
     */
    Slot take(WorkCompletion wc, MemorySegment bounce) {
        int imm = wc.immediate();
        int kind = Wire32.eagerKind(imm);
        int len = wc.byteLength();
        Slot s;
        try {
            s = unexpected.arrive(Wire32.eagerSeq(imm), kind, kind == Wire32.EAGER_DATA ? bounce : null, len);
        } catch (IllegalStateException e) {
            anomalies.protocolError("endpoint " + name + ": " + e.getMessage());
            return Unexpected.STALE; // its credit goes back in finish, after the re-post (I5)
        }
        if (s == null) {
            stats.eagerHeld.increment();
            return null;
        }
        if (s == Unexpected.STALE) {
            return s; // its credit goes back in finish, after the re-post (I5)
        }
        OpState op = s.tenant();
        if (kind == Wire32.EAGER_DATA && op != null && !op.isDone() && len <= s.length && len > 0) {
            MemorySegment.copy(bounce, 0, s.recvSegment, s.recvOffset, len);
        }
        return s;
    }

    /** Dispatch thread, after the receive was re-posted: completes what {@link #take} matched. */
    void finish(Slot s, WorkCompletion wc) {
        if (s == null) {
            return;
        }
        credits.consumed(1);
        if (s == Unexpected.STALE) {
            return;
        }
        int kind = Wire32.eagerKind(wc.immediate());
        if (kind == Wire32.EAGER_NOTICE) {
            if (s.small && !s.lateMeta) {
                lateMeta(s, s.tenant());
            }
            return; // a large recv's meta is on its way; either way the recv still waits for its data
        }
        complete(s, kind, wc.byteLength(), false);
    }

    private void complete(Slot s, int kind, long len, boolean noMeta) {
        OpState op = s.tenant();
        if (op != null && op.isDone()) {
            if (kind == Wire32.EAGER_DATA) {
                stats.eagerDropped.increment(); // its recv was cancelled: the position is consumed
            }
        } else if (op != null && kind == Wire32.EAGER_CANCELLED) {
            op.fail(WcStatus.REM_ABORT_ERR, "endpoint " + name + ": the peer cancelled the send matched with this recv");
        } else if (op != null && len > s.length) {
            op.fail(WcStatus.LOC_LEN_ERR, "endpoint " + name + ": the peer's eager send of " + len
                    + " bytes is longer than this recv of " + s.length + " bytes (the send completed: its data "
                    + "reached this endpoint)");
        } else if (op != null) {
            op.bytes(len);
        }
        releaser.countDown(recvPool, s, noMeta ? 2 : 1);
    }

    /** A small recv learns that its message is a rendezvous: it sends its meta after all (the send then fails it). */
    private void lateMeta(Slot s, OpState op) {
        if (!s.extend()) {
            return;
        }
        s.lateMeta = true;
        long seq = op == null ? 0 : op.seq;
        router.select(QpOpType.CONTROL, seq); // the meta queue pair: lane 0
        try {
            synchronized (metaWr) {
                metaWr.clear().wrId(WrIds.encode(WrIds.META_SEND, 0, s.index, 0, seq)).opcode(Opcode.SEND_WITH_IMM)
                        .immediate(Wire32.metaImm(Wire32.META_TYPE, 0))
                        .sge(transport.control, s.metaOffset, Wire32.META_BYTES);
                transport.meta.postSend(metaWr);
            }
        } catch (RuntimeException e) {
            if (!lifecycle.isEnding()) {
                anomalies.protocolError("endpoint " + name + ": could not send a late meta: " + e.getMessage());
            }
            if (op != null) { // no data will come for a meta that never went: the recv ends now
                op.fail(WcStatus.GENERAL_ERR, "endpoint " + name + ": posting the late meta of recv op " + op.seq
                        + " failed: " + e.getMessage());
            }
            releaser.countDown(recvPool, s, s.remaining());
        }
    }

    /** A rendezvous write arrived for a recv: it no longer waits for an eager message. */
    void forget(Slot slot) {
        if (threshold > 0) {
            unexpected.forget(slot);
        }
    }

    // ---- credits back to the peer ----

    private boolean returnCredits(int n) {
        router.select(QpOpType.CONTROL, 0);
        // more: no thread waits for it (a sender out of credits waits, bounded, for the next cycle: at most the
        // agent's rest away, 1 ms, 10 ms busy-polling), so where a default device's agent rests it leaves with what
        // is posted next, usually the reply to the message that freed it; a busy-polling device holds it behind an
        // unretired one
        creditWr.clear().wrId(WrIds.encode(WrIds.EAGER_CREDIT_SEND, 0, 0, 0, 0)).opcode(Opcode.SEND_WITH_IMM)
                .immediate(Wire32.metaImm(Wire32.EAGER_CREDIT_TYPE, n)).more(true);
        try {
            transport.meta.postSend(creditWr);
            stats.creditMessages.increment();
            return true;
        } catch (RuntimeException e) {
            if (!lifecycle.isEnding()) {
                anomalies.protocolError("could not return " + n + " eager credits: " + e.getMessage());
            }
            return false;
        }
    }

    /** Dispatch thread: an eager credit message completed. */
    void onCreditSent(WorkCompletion wc) {
        credits.onReturnSent(wc.isSuccess());
    }

    /**
     * The endpoint failed or is closing: held messages are dropped (counted), waiting notices give
     * their slots back, and senders waiting for a credit wake (and find the endpoint ended).
     */
    void end() {
        stats.eagerDropped.add(unexpected.clear());
        notices.clear(s -> releaser.countDown(sendPool, s, 1));
        credits.wake();
    }
}
