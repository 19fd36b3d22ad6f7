package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import static io.slime4j.soft.HeaderFlyweight.F_LAST;
import static io.slime4j.soft.HeaderFlyweight.before;


/**
 * Finds out what of the {@link OutboundStream} was delivered and what was lost, and queues the
 * lost segments to be sent again: cumulative ACKs, SACK bitmaps, duplicate ACKs and the
 * receiver's go-back request; RACK loss detection (RFC 8985: a segment is lost once one sent after
 * it was delivered and a round trip plus the {@link ReorderWindow} has passed since it left); a
 * tail-loss probe; and the retransmit timeout with exponential backoff and a retry budget. Round
 * trips are measured by an {@link RttEstimator} (Karn's rule); deliveries and losses are reported
 * to the {@link CongestionControl}. Time comes in as {@code now} on every call, so a test moves it
 * by assignment. Progress agent thread only.
 */
final class LossRecovery {
    /** How often the duty cycle at most looks again for holes whose time came (a scan walks the holes). */
    private static final long MIN_LOSS_SCAN_NANOS = 10_000;
    /**
     * The tail-loss probe's floor: a receiving agent descheduled for a time slice of a loaded
     * machine must not make every pause a probe (at 200 us, rate runs on loopback sent about twice
     * as many probes, each a duplicate for the receiver, with no gain under 5% drop on the veth).
     */
    static final long MIN_PROBE_TIMEOUT_NANOS = 1_000_000;

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
    private final ReorderWindow reorder = new ReorderWindow();

    /** Whether a delivery was noted yet ({@link #highestDeliveredPsn} is set). */
    private boolean anyDelivered;
    private long lastDeliveryNanos;
    /** A tail-loss probe left and nothing was delivered since: no second one. */
    private boolean probeOutstanding;
    /**
     * One past the highest PSN loss detection looks at: the highest SACKed, or everything sent when
     * the delivery of a resent segment became the reference point (a tail probe's, say: every
     * segment sent before it is then judged, also above the highest SACK).
     */
    private int lossScanEnd;
    /** A resent segment became the reference point: the next look judges up to {@link #lossScanEnd}. */
    private boolean resentEvidence;
    private long lastLossScanNanos;
    /**
     * The segment sent last among those known delivered (SACKed or ACKed), by
     * {@link SendSegment#sendOrder}: RACK's reference point.
     */
    private long newestDeliveredOrder;
    /** RACK.fack: the highest PSN known delivered; one below it delivered later, never resent, was reordered. */
    private int highestDeliveredPsn;
    /** RACK.rtt: the round trip of that segment, measured when its delivery became known. */
    private long rackRttNanos;
    /** Segments the latest ACK reported SACKed beyond its cumulative point (RFC 8985's DupThresh test). */
    private int sackedInLastAck;
    /** Loss recovery: from a detected loss or a timeout until every PSN then sent is acknowledged. */
    private boolean inRecovery;
    private int recoveryPsn;

    LossRecovery(OutboundStream stream, CongestionControl congestion, RttEstimator rtt, TimerWheel timers,
                 CounterSet counters, int retryCount, long ackDelayNanos) {
        this.stream = stream;
        this.congestion = congestion;
        this.rtt = rtt;
        this.timers = timers;
        this.counters = counters;
        this.retryCount = retryCount;
        this.ackDelayNanos = ackDelayNanos;
        this.lossScanEnd = stream.una();
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
        lastDeliveryNanos = now; // progress, also when every segment it retires was SACKed before
        probeOutstanding = false;
        int newly = 0;
        for (int psn = una; psn != ackPsn; psn++) {
            SendSegment s = stream.at(psn);
            timers.cancel(s);
            if (!s.sacked) {
                newly++;
                noteDelivered(s, now); // a SACKed one was noted when its SACK came
            }
            stream.leavePipe(s);
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
        if (before(lossScanEnd, ackPsn)) {
            lossScanEnd = ackPsn;
        }
        if (inRecovery && !before(ackPsn, recoveryPsn)) {
            inRecovery = false;
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
            // the responder still waits for this PSN: whatever an earlier SACK said, it needs it,
            // and it needs the retransmit timer that SACK cancelled
            SendSegment head = stream.at(ackPsn);
            head.sacked = false;
            if (!head.isScheduled()) {
                timers.schedule(head, now + rto());
            }
        }
        int bits = ack.sackBits();
        sackedInLastAck = 0;
        int highest = bits > 0 ? applySack(ack, bits, now) : stream.una();
        boolean goBack = ack.goBack();
        if (goBack) {
            highest = stream.nxt();
        }
        if (resentEvidence && before(highest, lossScanEnd)) {
            highest = lossScanEnd;
        }
        if ((duplicate || goBack || bits > 0 || resentEvidence) && !stream.isEmpty()) {
            int una = stream.una();
            detectLoss(before(una, highest) ? highest : una + 1, now, goBack);
        }
        resentEvidence = false;
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
                sackedInLastAck++;
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
                if (before(lossScanEnd, psn + 1)) {
                    lossScanEnd = psn + 1;
                }
            }
        }
        return highest;
    }

    /**
     * A segment's delivery became known (its first SACK, or its cumulative ACK if never SACKed):
     * RACK's reference point moves to it if it was sent later; one sent earlier, never resent,
     * arrived behind a later one: the path reorders.
     */
    private void noteDelivered(SendSegment s, long now) {
        lastDeliveryNanos = now;
        probeOutstanding = false;
        if (!anyDelivered || !before(s.psn, highestDeliveredPsn)) {
            highestDeliveredPsn = s.psn;
        } else if (!s.retransmitted) {
            reorder.onReordering(); // sent once, delivered after a higher PSN: the path reorders
        }
        if (s.sendOrder > newestDeliveredOrder) { // none delivered yet: 0, below every send order
            long roundTrip = now - s.sentAt;
            // a resent segment's round trip is ambiguous: taken only if it cannot be the first copy's
            if (!s.retransmitted || roundTrip >= reorder.minRtt()) {
                newestDeliveredOrder = s.sendOrder;
                rackRttNanos = roundTrip;
                if (s.retransmitted) {
                    resentEvidence = true;
                    lossScanEnd = stream.nxt();
                }
            }
        }
        anyDelivered = true;
    }

    /** A round-trip sample from a segment sent once and acknowledged just now (Karn's rule). */
    private void sampleRtt(SendSegment s, long now) {
        if (!s.retransmitted) {
            long sample = now - s.sentAt;
            rtt.sample(sample);
            reorder.onRttSample(sample);
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
        if (!before(stream.una(), lossScanEnd)) {
            resentEvidence = false;
            return;
        }
        // With no reordering window, every hole the evidence condemns is found when the evidence
        // comes; with one, a hole's time comes later, so the holes are looked at again.
        long window = reorderWindow();
        if (resentEvidence || (window > 0 && now - lastLossScanNanos > Math.max(MIN_LOSS_SCAN_NANOS, window / 2))) {
            resentEvidence = false;
            detectLoss(lossScanEnd, now, false);
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
            enterRecovery();
            congestion.onLoss(stream.nxt());
        }
    }

    private void enterRecovery() {
        if (!inRecovery) {
            inRecovery = true;
            recoveryPsn = stream.nxt();
        }
    }

    /**
     * RACK's rule (RFC 8985): a segment is lost when a segment sent after it has been delivered and
     * RACK.rtt plus the reordering window has passed since it was sent. A segment just sent again is
     * only judged lost on newer evidence, so nothing is resent in a loop.
     */
    private boolean isLost(SendSegment s, long now, long reorderWindow) {
        return s.sendOrder < newestDeliveredOrder && now - s.sentAt - rackRttNanos >= reorderWindow;
    }

    /** Whether the path was seen to reorder (for tests and diagnostics). */
    boolean reorderingSeen() {
        return reorder.reorderingSeen();
    }

    private long reorderWindow() {
        return reorder.nanos(inRecovery, sackedInLastAck, rtt.srtt());
    }

    /**
     * A SACK is a hint, not a promise: the responder may still refuse that packet in order (RNR,
     * an access error) and drop its record. So the oldest segment always keeps a retransmit timer,
     * SACKed or not, and {@link #onTimeout} sends it again if it is still the oldest then. (A head
     * that an ACK un-SACKs gets its timer back there, in {@link #onAck}.)
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
     * Tail loss probe (RFC 8985's TLP): when nothing was delivered for two round trips and an ACK
     * delay (at least {@link #MIN_PROBE_TIMEOUT_NANOS}, at most the retransmit timeout) while data
     * is in flight, resend the last segment not known delivered, once until something is delivered again. If the
     * tail was lost, the probe's delivery is evidence against every segment sent before it, which
     * loss detection then resends; if only the receiver paused, the originals arrive first and the
     * probe condemns nothing. It spends the oldest segment's first retry, as an early first timeout
     * that re-arms its timer with the first backoff, so that a silent peer sees {@code retryCount}
     * retransmissions in all and the budget still lasts the whole doubling schedule.
     */
    private void probeTail(long now) {
        long probeTimeout = Math.min(rto(),
                Math.max((long) (2 * rtt.srtt()) + ackDelayNanos, MIN_PROBE_TIMEOUT_NANOS));
        if (probeOutstanding || retryCount == 0 || stream.isEmpty() || now - lastDeliveryNanos < probeTimeout) {
            return;
        }
        SendSegment head = stream.at(stream.una());
        if (head.retries != 0) {
            return; // the head timed out or was probed for already: its timer takes it from here
        }
        SendSegment s = lastUnsacked();
        if (s != null && !s.queuedForRetransmit && now - s.sentAt > probeTimeout) {
            probeOutstanding = true;
            counters.increment(SoftCounter.TAIL_LOSS_PROBES);
            head.retries = 1;
            timers.schedule(head, now + backoff(1));
            stream.leavePipe(s);
            stream.queueRetransmit(s);
        }
    }

    /**
     * The probe's segment: the highest PSN in flight not known delivered (the segment sent last,
     * unless a SACK already reported it: then a lost resend below it, say), or null.
     */
    private SendSegment lastUnsacked() {
        for (int psn = stream.nxt() - 1; !before(psn, stream.una()); psn--) {
            SendSegment s = stream.at(psn);
            if (!s.sacked && !s.acked) {
                return s;
            }
        }
        return null;
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
        enterRecovery();
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
