package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import static io.slime4j.soft.HeaderFlyweight.F_LAST;
import static io.slime4j.soft.HeaderFlyweight.before;


/**
 * Finds out what of the {@link OutboundStream} was delivered and what was lost, and queues the
 * lost segments to be sent again: cumulative ACKs, SACK bitmaps, duplicate ACKs and the
 * receiver's go-back request; RACK-style loss detection (a segment is lost once one sent a
 * reordering window after it was delivered); a tail-loss probe; and the retransmit timeout with
 * exponential backoff and a retry budget. Round trips are measured by an {@link RttEstimator}
 * (Karn's rule); deliveries and losses are reported to the {@link CongestionControl}. Time comes
 * in as {@code now} on every call, so a test moves it by assignment. Progress agent thread only.
 */
final class LossRecovery {
    private static final long MIN_REORDER_WINDOW_NANOS = 50_000;

    /** What a retransmit timer's expiry led to. */
    enum Timeout {
        /** Stale: the segment was acknowledged, or it is SACKed and not the oldest. */
        IGNORED,
        /** The segment is queued to be sent again. */
        RETRANSMIT,
        /** The oldest segment spent its retry budget: the stream has failed. */
        EXHAUSTED
    }

    private final OutboundStream stream;
    private final CongestionControl congestion;
    private final RttEstimator rtt;
    private final TimerWheel timers;
    private final CounterSet counters;
    private final int retryCount;
    private final long ackDelayNanos;

    private boolean anyDelivered;
    private long lastDeliveryNanos;
    private long lastProbeNanos;
    /** One past the highest SACKed PSN; holes below it are candidates for loss detection. */
    private int highestSacked;
    private long lastLossScanNanos;
    /** Latest send time among segments known delivered (SACKed or ACKed): RACK's reference point. */
    private long newestDeliveredSentAt;

    LossRecovery(OutboundStream stream, CongestionControl congestion, RttEstimator rtt, TimerWheel timers,
                 CounterSet counters, int retryCount, long ackDelayNanos) {
        this.stream = stream;
        this.congestion = congestion;
        this.rtt = rtt;
        this.timers = timers;
        this.counters = counters;
        this.retryCount = retryCount;
        this.ackDelayNanos = ackDelayNanos;
        this.highestSacked = stream.una();
    }

    RttEstimator rtt() {
        return rtt;
    }

    /** The retransmit timeout for a segment sent for the first time. */
    long rto() {
        return rtt.rto();
    }

    /** The retransmit timeout after {@code retries} retries. */
    long backoff(int retries) {
        return rtt.backoff(retries);
    }

    // ---------------------------------------------------------------- acknowledgements

    /**
     * A cumulative ACK: every PSN before {@code ackPsn} was received and executed. Retires those
     * segments (a request's last one marks it acknowledged; a response's last one returns its job
     * to {@code responses}). Returns false if it said nothing new.
     */
    boolean onCumulativeAck(int ackPsn, long now, ResponseQueue responses) {
        int una = stream.una();
        if (before(ackPsn, una) || before(stream.nxt(), ackPsn) || ackPsn == una) {
            return false; // old (reordered), beyond what we sent, or nothing new
        }
        counters.increment(SoftCounter.ACKS_RECEIVED);
        int newly = 0;
        for (int psn = una; psn != ackPsn; psn++) {
            SendSegment s = stream.at(psn);
            timers.cancel(s);
            noteDelivered(s, now);
            stream.leavePipe(s);
            if (!s.sacked) {
                newly++;
            }
            s.acked = true;
            if ((s.flags & F_LAST) != 0) {
                if (s.wqe != null) {
                    s.wqe.acked = true;
                }
                if (s.job != null) {
                    responses.recycle(s.job);
                }
            }
            s.wqe = null;
            s.job = null;
        }
        SendSegment newest = stream.at(ackPsn - 1);
        if (!newest.sacked) {
            sampleRtt(newest, now);
        }
        stream.advanceTo(ackPsn);
        if (!stream.isEmpty()) {
            // progress: the new oldest segment starts a fresh retry budget (IB resets its retry
            // counter on progress); it may have timed out while it waited behind a hole
            stream.at(ackPsn).retries = 0;
        }
        if (before(highestSacked, ackPsn)) {
            highestSacked = ackPsn;
        }
        congestion.onAck(newly, ackPsn);
        return true;
    }

    /** An explicit positive ACK: its cumulative part, its SACK bitmap, and what they reveal as lost. */
    void onAck(AckFrame ack, long now, ResponseQueue responses) {
        int ackPsn = ack.ackPsn();
        boolean duplicate = ackPsn == stream.una() && !stream.isEmpty();
        onCumulativeAck(ackPsn, now, responses);
        if (ackPsn == stream.una() && !stream.isEmpty()) {
            // the responder still waits for this PSN: whatever an earlier SACK said, it needs it
            stream.at(ackPsn).sacked = false;
        }
        int bits = ack.sackBits();
        int highest = bits > 0 ? applySack(ack, bits, now) : stream.una();
        boolean goBack = ack.goBack();
        if (goBack) {
            highest = stream.nxt();
        }
        if ((duplicate || goBack || bits > 0) && !stream.isEmpty()) {
            int una = stream.una();
            detectLoss(before(una, highest) ? highest : una + 1, now, goBack);
        }
    }

    /** Marks the segments the SACK bitmap reports; returns one past the highest (or the cumulative ACK). */
    private int applySack(AckFrame ack, int bits, long now) {
        int base = ack.ackPsn() + 1;
        int highest = stream.una();
        int words = (bits + 63) >>> 6;
        for (int w = 0; w < words; w++) {
            long v = ack.sackWord(w);
            while (v != 0) {
                int b = Long.numberOfTrailingZeros(v);
                v &= v - 1;
                int psn = base + w * 64 + b;
                if (w * 64 + b >= bits || !stream.inWindow(psn)) {
                    continue;
                }
                SendSegment s = stream.at(psn);
                if (!s.sacked) {
                    s.sacked = true;
                    stream.leavePipe(s);
                    timers.cancel(s);
                    noteDelivered(s, now);
                    sampleRtt(s, now);
                }
                if (before(highest, psn + 1)) {
                    highest = psn + 1;
                }
                if (before(highestSacked, psn + 1)) {
                    highestSacked = psn + 1;
                }
            }
        }
        return highest;
    }

    private void noteDelivered(SendSegment s, long now) {
        lastDeliveryNanos = now;
        if (!anyDelivered || s.sentAt - newestDeliveredSentAt > 0) {
            newestDeliveredSentAt = s.sentAt;
            anyDelivered = true;
        }
    }

    /** A round-trip sample from a segment sent once and acknowledged just now (Karn's rule). */
    private void sampleRtt(SendSegment s, long now) {
        if (!s.retransmitted) {
            rtt.sample(now - s.sentAt);
        }
    }

    // ---------------------------------------------------------------- loss detection

    /**
     * Called every duty cycle before sending: keeps a timer on the oldest segment, sends a tail
     * probe when deliveries stopped, and scans for losses while SACKed holes remain.
     */
    void onDutyCycle(long now) {
        guardHead(now);
        probeTail(now);
        if (before(stream.una(), highestSacked) && now - lastLossScanNanos > reorderWindow() / 2) {
            detectLoss(highestSacked, now, false);
        }
    }

    /** Loss detection (as TCP RACK): queues the un-SACKed segments below {@code highest} judged lost. */
    private void detectLoss(int highest, long now, boolean goBack) {
        long reorderWindow = reorderWindow();
        lastLossScanNanos = now;
        boolean any = false;
        for (int psn = stream.una(); before(psn, highest); psn++) {
            SendSegment s = stream.at(psn);
            if (!s.sacked && !s.acked && !s.queuedForRetransmit
                    && (isLost(s, now, reorderWindow) || (goBack && now - s.sentAt > rtt.srtt()))) {
                stream.leavePipe(s);
                stream.queueRetransmit(s);
                counters.increment(SoftCounter.FAST_RETRANSMITS);
                any = true;
            }
        }
        if (any) {
            congestion.onLoss(stream.nxt());
        }
    }

    /**
     * RACK's rule: a segment is lost when a segment sent after it has been delivered, and either that
     * one was sent more than a reordering window later or a round trip plus the window has passed.
     * A segment just sent again is only judged lost on newer evidence, so nothing is resent in a loop.
     */
    private boolean isLost(SendSegment s, long now, long reorderWindow) {
        long lead = newestDeliveredSentAt - s.sentAt;
        return anyDelivered && lead > 0 && (lead > reorderWindow || now - s.sentAt > rtt.srtt() + reorderWindow);
    }

    private long reorderWindow() {
        return Math.max(MIN_REORDER_WINDOW_NANOS, (long) (rtt.srtt() / 4));
    }

    /**
     * A SACK is a hint, not a promise: the responder may still refuse that packet in order (RNR,
     * an access error) and drop its record. So the oldest segment always keeps a retransmit timer,
     * SACKed or not, and {@link #onTimeout} sends it again if it is still the oldest then.
     */
    private void guardHead(long now) {
        if (stream.isEmpty()) {
            return;
        }
        SendSegment s = stream.at(stream.una());
        if (s.sacked && !s.isScheduled()) {
            timers.schedule(s, now + rto());
        }
    }

    /**
     * Tail loss probe: when nothing was delivered for two round trips (at least half the ACK timeout)
     * while data is in flight, resend the oldest segment. Its delivery is fresh evidence that lets
     * loss detection resend every older hole, instead of leaving a lost retransmission to the timer.
     */
    private void probeTail(long now) {
        long probeTimeout = Math.max((long) (2 * rtt.srtt()) + ackDelayNanos, rtt.ackTimeout() / 2);
        if (stream.isEmpty() || now - lastDeliveryNanos < probeTimeout || now - lastProbeNanos < probeTimeout) {
            return;
        }
        SendSegment s = stream.at(stream.una());
        if (!s.sacked && !s.acked && !s.queuedForRetransmit && now - s.sentAt > probeTimeout
                && s.retries == 0 && retryCount > 0) {
            // once per segment, as an early first timeout: it spends the first retry and re-arms the
            // timer with the first backoff, so the budget still lasts the whole doubling schedule
            lastProbeNanos = now;
            s.retries = 1;
            timers.schedule(s, now + backoff(1));
            stream.leavePipe(s);
            stream.queueRetransmit(s);
        }
    }

    // ---------------------------------------------------------------- timers

    /** A segment's retransmit timer expired (the stream is running). */
    Timeout onTimeout(SendSegment s, long now) {
        if (s.acked || !stream.inWindow(s.psn)) {
            return Timeout.IGNORED;
        }
        if (s.sacked) {
            if (s.psn != stream.una()) {
                return Timeout.IGNORED;
            }
            s.sacked = false; // SACKed, yet still not executed a whole timeout later: send it again
        }
        counters.increment(Counter.TIMEOUTS);
        // The retry budget is spent by the oldest unacknowledged segment only: later ones may be
        // waiting behind it, and their timeouts say nothing about the peer (as in InfiniBand, where
        // the retry counter resets whenever the stream makes progress).
        if (s.retries >= retryCount) {
            if (s.psn == stream.una()) {
                return Timeout.EXHAUSTED;
            }
        } else {
            s.retries++;
        }
        stream.leavePipe(s);
        congestion.onTimeout(s.psn, stream.nxt());
        stream.queueRetransmit(s);
        return Timeout.RETRANSMIT;
    }
}
