package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import static io.slime4j.soft.HeaderFlyweight.*;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.WcStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The completing role of a queue pair (as rxe_comp.c): takes in what the peer says about our
 * requests (ACKs, RNR and error NAKs, read and atomic responses, retransmit timeouts), and
 * completes send-queue requests in post order once they are acknowledged and answered, or fails
 * the queue pair and flushes. Loss bookkeeping is {@link LossRecovery}'s; this class decides what
 * an ACK means for the requests. Progress agent thread only.
 */
final class Completer implements SendSegment.Owner {
    private final SoftQueuePair qp;
    private final SoftDevice device;
    private final QpConfig config;
    private final OutboundStream stream;
    private final LossRecovery loss;
    private final ResponseQueue responses;
    private final SendProgress progress;
    private final CounterSet counters;
    private final long rnrTimerNanos;
    private final long responseTimeoutNanos;

    Completer(SoftQueuePair qp, SoftDevice device, OutboundStream stream, LossRecovery loss, ResponseQueue responses,
              SendProgress progress) {
        this.qp = qp;
        this.device = device;
        this.config = qp.config();
        this.stream = stream;
        this.loss = loss;
        this.responses = responses;
        this.progress = progress;
        this.counters = qp.countersSet();
        long ackTimeoutNanos = config.ackTimeout().toNanos();
        this.rnrTimerNanos = config.rnrTimer().toNanos();
        long total = 0;
        for (int i = 0; i <= config.retryCount(); i++) {
            total += ackTimeoutNanos * Math.min(1L << Math.min(i, 20), QpConfig.MAX_BACKOFF);
        }
        this.responseTimeoutNanos = total + ackTimeoutNanos;
    }

    // ---------------------------------------------------------------- acknowledgements

    /** A cumulative ACK piggy-backed on a data packet. */
    void onCumulativeAck(int ackPsn, long now) {
        if (loss.onCumulativeAck(ackPsn, now, responses)) {
            afterProgress();
        }
    }

    private void afterProgress() {
        progress.rnrRetriesUsed = 0;
        if (progress.readAtomicUnacked && before(progress.lastReadAtomicPsn, stream.una())) {
            progress.readAtomicUnacked = false;
        }
    }

    /** An explicit ACK or NAK packet (with optional SACK bitmap). */
    void onAckPacket(AckFrame ack, long now) {
        stream.onWindowUpdate(ack.window(), ack.ackPsn());
        switch (ack.syndrome()) {
            case SYNDROME_ACK -> {
                int before = stream.una();
                loss.onAck(ack, now, responses);
                if (stream.una() != before) {
                    afterProgress();
                }
            }
            case SYNDROME_RNR_NAK -> onRnrNak(ack.psn(), now);
            default -> onErrorNak(ack.psn(), ack.syndrome(), now);
        }
    }

    private void onRnrNak(int psn, long now) {
        counters.increment(Counter.RNR_NAKS_RECEIVED);
        if (!stream.inWindow(psn) || progress.halted || (progress.rnrWaiting && psn == progress.rnrPsn)) {
            return; // stale, or a duplicate of the NAK we are already waiting out
        }
        onCumulativeAck(psn, now);
        if (config.rnrRetry() != QpConfig.RNR_RETRY_INFINITE && ++progress.rnrRetriesUsed > config.rnrRetry()) {
            failAt(psn, WcStatus.RNR_RETRY_EXC_ERR);
            return;
        }
        progress.rnrWaiting = true;
        progress.rnrPsn = psn;
        progress.rnrUntil = now + rnrTimerNanos;
        stream.clearRetransmits();
        stream.at(psn).sacked = false; // refused in order: the responder dropped it
        for (int p = psn; before(p, stream.nxt()); p++) {
            SendSegment s = stream.at(p);
            s.queuedForRetransmit = false;
            if (!s.sacked) {
                device.timers().cancel(s);
                stream.queueRetransmit(s);
            }
        }
    }

    private void onErrorNak(int psn, int syndrome, long now) {
        counters.increment(Counter.NAKS_RECEIVED);
        if (!stream.inWindow(psn)) {
            return;
        }
        onCumulativeAck(psn, now);
        WcStatus status = switch (syndrome) {
            case SYNDROME_NAK_REMOTE_ACCESS -> WcStatus.REM_ACCESS_ERR;
            case SYNDROME_NAK_INVALID_REQUEST -> WcStatus.REM_INV_REQ_ERR;
            default -> WcStatus.REM_OP_ERR;
        };
        failAt(psn, status);
    }

    /** A segment's retransmit timer expired. */
    @Override
    public void onTimeout(SendSegment s, long now) {
        if (!qp.isActive() || progress.halted) {
            return;
        }
        if (loss.onTimeout(s, now) == LossRecovery.Timeout.EXHAUSTED) {
            fail(WcStatus.RETRY_EXC_ERR);
        }
    }

    /** Fails the stream when a read or atomic at the head got no (further) response for too long. */
    void checkResponseTimeout(long now) {
        if (progress.outstandingReadAtomic == 0 || progress.sqCompleted == progress.sqStarted) {
            return;
        }
        SendWqe w = qp.sendWqe(progress.sqCompleted);
        if (w.started && w.acked && !w.responseDone && now - w.responseProgressNanos > responseTimeoutNanos) {
            counters.increment(Counter.TIMEOUTS);
            fail(WcStatus.RETRY_EXC_ERR);
        }
    }

    // ---------------------------------------------------------------- responses to our reads and atomics

    /** Response data for one of our reads. */
    void onReadResponse(ResponseFrame r, MemorySegment packet, int payloadLength, long now) {
        SendWqe w = responseTarget(r.ssn(), Opcode.RDMA_READ);
        if (w == null) {
            counters.increment(SoftCounter.BAD_PACKETS);
            return;
        }
        if (r.isError()) {
            w.status = remoteError(r.errorStatus());
            responseFinished(w);
            return;
        }
        long offset = r.readOffset();
        if (offset < 0 || payloadLength > w.length - w.responseBytes || offset > w.length - payloadLength) {
            counters.increment(SoftCounter.BAD_PACKETS);
            return;
        }
        try {
            Sgl.scatter(packet, HEADER_LENGTH, payloadLength, w.numSge, w.sgeSegment, w.sgeOffset, w.sgeLength, offset);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            w.status = WcStatus.LOC_PROT_ERR;
        }
        w.responseBytes += payloadLength;
        w.responseProgressNanos = now;
        if (w.responseBytes == w.length || w.status != null) {
            responseFinished(w);
        }
    }

    /** The old value of one of our atomics. */
    void onAtomicResponse(ResponseFrame r) {
        SendWqe w = responseTarget(r.ssn(), null);
        if (w == null || !w.opcode.isAtomic()) {
            counters.increment(SoftCounter.BAD_PACKETS);
            return;
        }
        if (r.isError()) {
            w.status = remoteError(r.errorStatus());
        } else {
            MemorySegment value = device.scratch8();
            value.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, r.atomicValue());
            try {
                Sgl.scatter(value, 0, 8, w.numSge, w.sgeSegment, w.sgeOffset, w.sgeLength, 0);
            } catch (IllegalStateException | IndexOutOfBoundsException e) {
                w.status = WcStatus.LOC_PROT_ERR;
            }
        }
        responseFinished(w);
    }

    /** The status a peer's error response reports, limited to the remote errors a response may carry. */
    private static WcStatus remoteError(int code) {
        WcStatus s = WcStatus.ofOrdinal(code);
        return s == WcStatus.REM_ACCESS_ERR || s == WcStatus.REM_INV_REQ_ERR ? s : WcStatus.REM_OP_ERR;
    }

    private SendWqe responseTarget(long ssn, Opcode expected) {
        if (ssn < progress.sqCompleted || ssn >= progress.sqStarted + 1 || ssn >= qp.sqPosted()) {
            return null;
        }
        SendWqe w = qp.sendWqe(ssn);
        if (w.ssn != ssn || !w.started || w.responseDone || (expected != null && w.opcode != expected)) {
            return null;
        }
        return w;
    }

    private void responseFinished(SendWqe w) {
        w.responseDone = true;
        progress.outstandingReadAtomic--;
    }

    // ---------------------------------------------------------------- completion and failure

    /** Completes finished requests in post order. Returns how many. */
    int completeInOrder() {
        int n = 0;
        long posted = qp.sqPosted();
        while (progress.sqCompleted != posted) {
            SendWqe w = qp.sendWqe(progress.sqCompleted);
            if (!w.isDone()) {
                break;
            }
            WcStatus st = w.status == null ? WcStatus.SUCCESS : w.status;
            if (w.started && !w.responseDone) {
                responseFinished(w);
            }
            if (st != WcStatus.SUCCESS || w.signaled) {
                qp.completeSend(w, st);
            }
            w.release();
            progress.sqCompleted++;
            if (progress.sqStarted < progress.sqCompleted) {
                progress.sqStarted = progress.sqCompleted;
            }
            n++;
            if (st != WcStatus.SUCCESS) {
                halt();
                qp.enterError();
                return n;
            }
        }
        return n;
    }

    /** Marks the request that owns {@code psn} as failed; it is reported in order. */
    private void failAt(int psn, WcStatus status) {
        SendSegment s = stream.at(psn);
        if (s.wqe != null) {
            s.wqe.status = status;
            s.wqe.allSent = true;
            halt();
        } else {
            fail(status);
        }
    }

    /** Stops all transmission of this queue pair; it is about to enter ERR. */
    void halt() {
        stream.halt(device.timers());
        responses.clear();
        progress.halted = true;
    }

    /** A fatal error for the stream: the oldest unfinished request gets {@code status}, the rest flush. */
    void fail(WcStatus status) {
        halt();
        completeInOrder();
        if (progress.sqCompleted != qp.sqPosted()) {
            SendWqe w = qp.sendWqe(progress.sqCompleted);
            w.status = status;
        }
        completeInOrder();
        qp.enterError();
    }

    /** Completes every remaining request with WR_FLUSH_ERR (queue pair in ERR). */
    int flush() {
        int n = 0;
        long posted = qp.sqPosted();
        while (progress.sqCompleted != posted) {
            SendWqe w = qp.sendWqe(progress.sqCompleted);
            qp.completeSend(w, WcStatus.WR_FLUSH_ERR);
            w.release();
            progress.sqCompleted++;
            n++;
        }
        progress.sqStarted = progress.sqCompleted;
        progress.outstandingReadAtomic = 0;
        return n;
    }
}
