package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.WcStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;

/**
 * The outbound half of a queue pair: turns send-queue requests and owed responses into packets of
 * one reliable stream, keeps them in the send window until acknowledged, retransmits on timeout,
 * on a duplicate ACK and after an RNR NAK, limits what is in flight (window, AIMD congestion
 * window, outstanding reads) and completes requests in post order. Progress agent thread only.
 */
final class Requester {
    private static final int BURST = 64;
    /** Congestion window floor: random (non-congestive) loss must not starve a queue pair. */
    private static final int MIN_CWND = 16;
    private static final long MIN_REORDER_WINDOW_NANOS = 50_000;
    /** What a requester assumes of the peer's receive window until the first explicit ACK says. */
    static final long INITIAL_PEER_WINDOW_BYTES = 256 * 1024;

    private final SoftQueuePair qp;
    private final SoftDevice device;
    private final QpConfig config;
    private final SendSegment[] window;
    private final int windowMask;
    private final ArrayDeque<SendSegment> retransmitQueue = new ArrayDeque<>();
    private final ArrayDeque<ResponseJob> responses = new ArrayDeque<>();
    private final ArrayDeque<ResponseJob> freeJobs = new ArrayDeque<>();
    private final long ackTimeoutNanos;
    private final long rnrTimerNanos;
    private final long responseTimeoutNanos;
    private final long ackDelayNanos;
    private final int tinyMessageSize;

    int sndUna;
    int sndNxt;
    /** Bytes the peer can absorb in flight; until it says, an assumption that fits any socket buffer. */
    private long peerWindowBytes = INITIAL_PEER_WINDOW_BYTES;
    /** Next send sequence number to start, and next to complete. */
    long sqStarted;
    long sqCompleted;
    /** Message sequence number of the next request that consumes a receive at the peer. */
    private int msnNext;
    private int outstandingReadAtomic;
    private int lastReadAtomicPsn;
    private boolean readAtomicUnacked;
    private int rnrRetriesUsed;
    private long rnrUntil;
    private boolean rnrWaiting;
    private int rnrPsn;
    /**
     * Set once a request failed (locally, or by a NAK): nothing new is sent; what is outstanding
     * still completes or times out, and the completer then reports the failure and flushes.
     */
    private boolean halted;
    /** A request failed locally: later requests are not started (earlier ones still complete). */
    private boolean stopNew;
    private boolean anyDelivered;
    private double cwnd;
    private double ssthresh;
    private int pipe;
    private int recoveryPsn;
    private boolean inRecovery;
    /** Smoothed round-trip time of never-retransmitted segments. */
    private double srttNanos;
    private double rttVarNanos;
    private long lastDeliveryNanos;
    private long lastProbeNanos;
    /** One past the highest SACKed PSN; holes below it are candidates for loss detection. */
    private int highestSacked;
    private long lastLossScanNanos;
    /** Latest send time among segments known delivered (SACKed or ACKed): RACK's reference point. */
    private long newestDeliveredSentAt;

    Requester(SoftQueuePair qp, SoftDevice device, int initialPsn) {
        this.qp = qp;
        this.device = device;
        this.config = qp.config();
        int w = device.softConfig().sendWindow();
        this.window = new SendSegment[w];
        this.windowMask = w - 1;
        this.sndUna = initialPsn;
        this.sndNxt = initialPsn;
        this.highestSacked = initialPsn;
        this.ackTimeoutNanos = config.ackTimeout().toNanos();
        this.rnrTimerNanos = config.rnrTimer().toNanos();
        long total = 0;
        for (int i = 0; i <= config.retryCount(); i++) {
            total += ackTimeoutNanos * Math.min(1L << Math.min(i, 20), QpConfig.MAX_BACKOFF);
        }
        this.responseTimeoutNanos = total + ackTimeoutNanos;
        this.ackDelayNanos = device.softConfig().ackDelay().toNanos();
        this.tinyMessageSize = device.softConfig().tinyMessageSize();
        this.cwnd = device.softConfig().initialCongestionWindow();
        this.srttNanos = Math.min(ackTimeoutNanos / 4.0, 1_000_000);
        this.rttVarNanos = srttNanos / 2;
        this.ssthresh = w;
    }

    int inFlight() {
        return sndNxt - sndUna;
    }

    /** Sends what the window allows and completes what is done. Returns a work count. */
    int doWork(long now, boolean sendRequests) {
        int work = 0;
        if (halted) {
            checkResponseTimeout(now);
            return completeInOrder();
        }
        if (rnrWaiting) {
            if (now - rnrUntil < 0) {
                return completeInOrder();
            }
            rnrWaiting = false;
        }
        guardHead(now);
        probeTail(now);
        if (before(sndUna, highestSacked) && now - lastLossScanNanos > reorderWindow() / 2) {
            fastRetransmit(highestSacked, now, false);
        }
        work += sendRetransmits(now);
        work += sendResponses(now);
        if (sendRequests) {
            work += sendRequests(now);
        }
        checkResponseTimeout(now);
        work += completeInOrder();
        return work;
    }

    // ---------------------------------------------------------------- new requests

    private int sendRequests(long now) {
        if (stopNew) {
            return 0;
        }
        int sent = 0;
        while (sent < BURST && canSendNew()) {
            if (sqStarted == qp.sqPosted()) {
                break;
            }
            SendWqe w = qp.sendWqe(sqStarted);
            if (!w.started && !start(w)) {
                if (w.status != null) {
                    sqStarted++; // a local error: reported in order by completeInOrder
                }
                break; // or it waits for reads/atomics (limit or fence)
            }
            sent += segment(w, now);
            if (w.allSent) {
                sqStarted++;
            }
        }
        return sent;
    }

    private boolean canSendNew() {
        return inFlight() < window.length && pipe < (int) cwnd
                && (long) pipe * (config.mtu() + HEADER_LENGTH) < peerWindowBytes;
    }

    /** The peer's advertised receive window (bytes), from its latest explicit ACK. */
    void onWindowUpdate(long bytes) {
        if (bytes > 0) {
            peerWindowBytes = bytes;
        }
    }

    /** Starts a request: checks fences and read limits, resolves local memory. */
    private boolean start(SendWqe w) {
        if (w.opcode.isReadOrAtomic() && outstandingReadAtomic >= config.maxReadAtomic()) {
            return false;
        }
        if (w.fence && outstandingReadAtomic > 0) {
            return false;
        }
        boolean needWrite = w.opcode.isReadOrAtomic();
        WcStatus err = Sgl.resolve(device.keyTable(), qp.pd(), w.numSge, w.sgeAddress, w.sgeLength, w.sgeKey,
                needWrite, w.sgeSegment, w.sgeOffset);
        if (err == null && w.opcode.isAtomic() && w.length != 8) {
            err = WcStatus.LOC_LEN_ERR;
        }
        if (err != null) {
            w.status = err;
            w.allSent = true;
            stopNew = true; // later requests must not run at the peer before this one is reported
            return false;
        }
        w.started = true;
        if (w.opcode.consumesReceive()) {
            w.msn = msnNext++;
        }
        if (w.opcode.isReadOrAtomic()) {
            outstandingReadAtomic++;
            w.responseProgressNanos = System.nanoTime();
        }
        return true;
    }

    /** Emits packets of {@code w} while the window allows; returns packets sent. */
    private int segment(SendWqe w, long now) {
        int sent = 0;
        int mtu = config.mtu();
        do {
            int type;
            int payload;
            int flags = w.bytesSent == 0 ? F_FIRST : 0;
            switch (w.opcode) {
                case SEND, SEND_WITH_IMM -> {
                    type = TYPE_SEND;
                    payload = Math.min(mtu, w.length - w.bytesSent);
                }
                case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> {
                    type = TYPE_WRITE;
                    payload = Math.min(mtu, w.length - w.bytesSent);
                }
                case RDMA_READ -> {
                    type = TYPE_READ_REQ;
                    payload = w.length - w.bytesSent;
                }
                default -> {
                    type = TYPE_ATOMIC_REQ;
                    payload = 8;
                    if (w.opcode == Opcode.ATOMIC_CMP_SWAP) {
                        flags |= F_CMP_SWAP;
                    }
                }
            }
            boolean last = w.bytesSent + payload >= w.length;
            if (last) {
                flags |= F_LAST;
                if (w.opcode.hasImmediate()) {
                    flags |= F_IMM;
                }
            }
            if (readAtomicUnacked && !before(lastReadAtomicPsn, sndUna)) {
                flags |= F_ORDERED;
            }
            SendSegment s = claim(sndNxt, type, flags);
            s.wqe = w;
            s.msgOffset = w.bytesSent;
            s.payloadLength = type == TYPE_READ_REQ ? 0 : (type == TYPE_ATOMIC_REQ ? 8 : payload);
            if (type == TYPE_READ_REQ || type == TYPE_ATOMIC_REQ) {
                lastReadAtomicPsn = sndNxt;
                readAtomicUnacked = true;
            }
            w.bytesSent += type == TYPE_ATOMIC_REQ ? w.length : payload;
            sndNxt++;
            if (last) {
                w.lastPsn = s.psn;
                w.allSent = true;
            }
            if (!transmit(s, now, false)) {
                return sent;
            }
            sent++;
        } while (!w.allSent && sent < BURST && canSendNew());
        return sent;
    }

    private SendSegment claim(int psn, int type, int flags) {
        int i = psn & windowMask;
        SendSegment s = window[i];
        if (s == null) {
            s = new SendSegment(this);
            window[i] = s;
        }
        s.reset(psn, type, flags);
        return s;
    }

    // ---------------------------------------------------------------- responses we owe the peer

    ResponseJob newReadResponse(long ssn, long remoteKey, long address, int length) {
        ResponseJob j = takeJob();
        responses.add(j.read(ssn, remoteKey, address, length));
        return j;
    }

    void newAtomicResponse(long ssn, long value) {
        responses.add(takeJob().atomic(ssn, value));
    }

    /** A recycled response job, or a new one while the pool is still growing. */
    private ResponseJob takeJob() {
        ResponseJob j = freeJobs.poll();
        return j != null ? j : new ResponseJob();
    }

    int pendingResponses() {
        return responses.size();
    }

    private int sendResponses(long now) {
        int sent = 0;
        int mtu = config.mtu();
        while (sent < BURST && canSendNew() && !responses.isEmpty()) {
            ResponseJob j = responses.peek();
            int type = j.atomic ? TYPE_ATOMIC_RESP : TYPE_READ_RESP;
            int payload = j.atomic ? 0 : Math.min(mtu, j.length - j.queued);
            int flags = (j.queued == 0 ? F_FIRST : 0);
            boolean last = j.queued + payload >= j.length;
            if (last) {
                flags |= F_LAST;
            }
            SendSegment s = claim(sndNxt++, type, flags);
            s.job = j;
            s.msgOffset = j.queued;
            s.payloadLength = payload;
            j.queued += payload;
            if (last) {
                responses.poll(); // the segment keeps a reference until it is acknowledged
            }
            if (!transmit(s, now, false)) {
                return sent;
            }
            if (j.status != null && !last) {
                responses.poll(); // an error response ends the read; no more packets for it
            }
            sent++;
        }
        return sent;
    }

    // ---------------------------------------------------------------- building and sending packets

    /** Builds the packet of {@code s} in the device's transmit buffer and sends it. */
    private boolean transmit(SendSegment s, long now, boolean retransmission) {
        HeaderFlyweight h = device.txHeader();
        DataFrame d = device.txData();
        ResponseFrame r = device.txResponse();
        MemorySegment buf = h.segment();
        int flags = s.flags | F_ACK;
        if (!readAtomicUnacked) {
            flags &= ~F_ORDERED; // no read or atomic is waiting to execute before it any more
        }
        h.start(s.type, flags, qp.peerQpn(), qp.peerToken(), s.psn).ackPsn(qp.responder().expectedPsn());
        int length = HEADER_LENGTH + s.payloadLength;
        MemorySegment gatherFrom = null; // the payload's memory when the port gathers it from there
        long gatherOffset = 0;
        try {
            if (s.wqe != null) {
                SendWqe w = s.wqe;
                d.remoteKey(w.remoteKey).immediate(w.immediate).messageLength(w.length);
                switch (s.type) {
                    case TYPE_SEND, TYPE_WRITE -> {
                        d.remoteAddress(w.remoteAddress + s.msgOffset).messageOffset(s.msgOffset).msn(w.msn);
                        if (w.numSge == 1 && s.payloadLength > 0 && device.portGathers()) {
                            KeyTable.Entry e = w.sgeSegment[0];
                            if (!e.valid || !e.segment.scope().isAlive()) {
                                throw new IllegalStateException("region deregistered or freed");
                            }
                            gatherFrom = e.segment;
                            gatherOffset = w.sgeOffset[0] + s.msgOffset;
                        } else {
                            Sgl.gather(w.numSge, w.sgeSegment, w.sgeOffset, w.sgeLength, s.msgOffset, buf,
                                    HEADER_LENGTH, s.payloadLength);
                        }
                    }
                    case TYPE_READ_REQ -> d.remoteAddress(w.remoteAddress).ssn(w.ssn);
                    default -> {
                        d.remoteAddress(w.remoteAddress).ssn(w.ssn).compareAdd(w.compareAdd).swap(w.swap);
                    }
                }
            } else {
                ResponseJob j = s.job;
                r.ssn(j.ssn).readLength(j.length).readOffset(s.msgOffset);
                if (j.atomic) {
                    r.atomicValue(j.atomicValue);
                } else if (s.payloadLength > 0 && j.status == null && device.portGathers()) {
                    // the response's payload leaves straight from the registered region
                    KeyTable.Entry e = device.keyTable().byRemoteKey(j.remoteKey);
                    long off = e == null ? -1 : e.offsetOf(j.address + s.msgOffset, s.payloadLength);
                    if (off >= 0 && e.valid && e.segment.scope().isAlive()) {
                        gatherFrom = e.segment;
                        gatherOffset = off;
                    } else {
                        length = buildReadPayload(r, j, s, length); // reports the access error
                    }
                } else if (s.payloadLength > 0 || j.status != null) {
                    length = buildReadPayload(r, j, s, length);
                }
            }
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            // the memory was freed (arena closed) under a registered region
            if (s.wqe != null) {
                s.wqe.status = WcStatus.LOC_PROT_ERR;
                s.wqe.allSent = true;
                stopNew = true;
                return false;
            }
            r.flags(r.flags() | F_ERROR);
            r.errorStatus(WcStatus.REM_ACCESS_ERR.ordinal());
            length = HEADER_LENGTH;
        }
        s.sentAt = now;
        enterPipe(s);
        if (!retransmission) {
            device.timers().schedule(s, now + rto());
        } else {
            s.retransmitted = true;
        }
        // the priority channel is drained first, so a data packet may take it only when nothing of
        // this stream is in flight before it: otherwise it would overtake and look like a loss
        boolean priority = length <= tinyMessageSize && s.psn == sndUna;
        if (gatherFrom != null) {
            device.transmit(qp, HEADER_LENGTH, gatherFrom, gatherOffset, s.payloadLength, priority);
        } else {
            device.transmit(qp, length, priority);
        }
        qp.responder().ackCarried();
        return true;
    }

    private void enterPipe(SendSegment s) {
        if (!s.inPipe) {
            s.inPipe = true;
            pipe++;
        }
    }

    /** The segment left the network: delivered, or judged lost. */
    private void leavePipe(SendSegment s) {
        if (s.inPipe) {
            s.inPipe = false;
            pipe--;
        }
    }

    private int buildReadPayload(ResponseFrame h, ResponseJob j, SendSegment s, int length) {
        KeyTable.Entry e = j.status == null ? device.keyTable().byRemoteKey(j.remoteKey) : null;
        long off = e == null ? -1 : e.offsetOf(j.address + s.msgOffset, s.payloadLength);
        if (off < 0) {
            j.status = j.status == null ? WcStatus.REM_ACCESS_ERR : j.status;
            h.flags(h.flags() | F_ERROR);
            h.errorStatus(j.status.ordinal());
            return HEADER_LENGTH;
        }
        MemorySegment.copy(e.segment, off, h.segment(), HEADER_LENGTH, s.payloadLength);
        return length;
    }

    private int sendRetransmits(long now) {
        int sent = 0;
        while (sent < BURST && !retransmitQueue.isEmpty()) {
            SendSegment s = retransmitQueue.poll();
            s.queuedForRetransmit = false;
            if (s.acked || s.sacked || !inWindow(s.psn)) {
                continue;
            }
            transmit(s, now, true);
            if (!s.isScheduled()) {
                // after a timeout; a fast retransmission leaves the running timer alone, so that
                // timeouts keep spending the retry budget while the peer is silent
                device.timers().schedule(s, now + backoff(s.retries));
            }
            qp.countersSet().increment(Counter.RETRANSMITS);
            sent++;
        }
        return sent;
    }

    /**
     * Tail loss probe: when nothing was delivered for two round trips (at least half the ACK timeout)
     * while data is in flight, resend the oldest segment. Its delivery is fresh evidence that lets
     * loss detection resend every older hole, instead of leaving a lost retransmission to the timer.
     */
    /**
     * RACK's rule: a segment is lost when a segment sent after it has been delivered, and either that
     * one was sent more than a reordering window later or a round trip plus the window has passed.
     * A segment just sent again is only judged lost on newer evidence, so nothing is resent in a loop.
     */
    private boolean isLost(SendSegment s, long now, long reorderWindow) {
        long lead = newestDeliveredSentAt - s.sentAt;
        return anyDelivered && lead > 0 && (lead > reorderWindow || now - s.sentAt > srttNanos + reorderWindow);
    }

    /**
     * A SACK is a hint, not a promise: the responder may still refuse that packet in order (RNR,
     * an access error) and drop its record. So the oldest segment always keeps a retransmit timer,
     * SACKed or not, and {@link #onTimeout} sends it again if it is still the oldest then.
     */
    private void guardHead(long now) {
        if (sndUna == sndNxt) {
            return;
        }
        SendSegment s = window[sndUna & windowMask];
        if (s.sacked && !s.isScheduled()) {
            device.timers().schedule(s, now + rto());
        }
    }

    private long reorderWindow() {
        return Math.max(MIN_REORDER_WINDOW_NANOS, (long) (srttNanos / 4));
    }

    private void probeTail(long now) {
        long probeTimeout = Math.max((long) (2 * srttNanos) + ackDelayNanos,
                ackTimeoutNanos / 2);
        if (sndUna == sndNxt || now - lastDeliveryNanos < probeTimeout || now - lastProbeNanos < probeTimeout) {
            return;
        }
        SendSegment s = window[sndUna & windowMask];
        if (!s.sacked && !s.acked && !s.queuedForRetransmit && now - s.sentAt > probeTimeout
                && s.retries == 0 && config.retryCount() > 0) {
            // once per segment, as an early first timeout: it spends the first retry and re-arms the
            // timer with the first backoff, so the budget still lasts the whole doubling schedule
            lastProbeNanos = now;
            s.retries = 1;
            device.timers().schedule(s, now + backoff(1));
            leavePipe(s);
            queueRetransmit(s);
        }
    }

    /**
     * The retransmit timeout: the configured ACK timeout, or more when the measured round trip
     * (queueing included) needs it, so that a deep queue does not cause spurious retransmissions.
     */
    private long rto() {
        return Math.max(ackTimeoutNanos, (long) (srttNanos + 4 * rttVarNanos));
    }

    private long backoff(int retries) {
        return rto() * Math.min(1L << Math.min(retries, 20), QpConfig.MAX_BACKOFF);
    }

    private boolean inWindow(int psn) {
        return !before(psn, sndUna) && before(psn, sndNxt);
    }

    private void queueRetransmit(SendSegment s) {
        if (!s.queuedForRetransmit) {
            s.queuedForRetransmit = true;
            retransmitQueue.add(s);
        }
    }

    // ---------------------------------------------------------------- timers

    /** A segment's retransmit timer expired. */
    void onTimeout(SendSegment s, long now) {
        if (s.acked || !inWindow(s.psn) || !qp.isActive() || halted) {
            return;
        }
        if (s.sacked) {
            if (s.psn != sndUna) {
                return;
            }
            s.sacked = false; // SACKed, yet still not executed a whole timeout later: send it again
        }
        qp.countersSet().increment(Counter.TIMEOUTS);
        // The retry budget is spent by the oldest unacknowledged segment only: later ones may be
        // waiting behind it, and their timeouts say nothing about the peer (as in InfiniBand, where
        // the retry counter resets whenever the stream makes progress).
        if (s.retries >= config.retryCount()) {
            if (s.psn == sndUna) {
                fail(WcStatus.RETRY_EXC_ERR);
                return;
            }
        } else {
            s.retries++;
        }
        leavePipe(s);
        if (!inRecovery || !before(s.psn, recoveryPsn)) {
            // a timeout means the ACK clock stopped: restart from the floor, as TCP does after an RTO
            ssthresh = Math.max(MIN_CWND, cwnd / 2);
            cwnd = MIN_CWND;
            inRecovery = true;
            recoveryPsn = sndNxt;
        }
        queueRetransmit(s);
    }

    private void checkResponseTimeout(long now) {
        if (outstandingReadAtomic == 0 || sqCompleted == sqStarted) {
            return;
        }
        SendWqe w = qp.sendWqe(sqCompleted);
        if (w.started && w.acked && !w.responseDone && now - w.responseProgressNanos > responseTimeoutNanos) {
            qp.countersSet().increment(Counter.TIMEOUTS);
            fail(WcStatus.RETRY_EXC_ERR);
        }
    }

    // ---------------------------------------------------------------- acknowledgements

    /** A cumulative ACK: every PSN before {@code ackPsn} was received and executed. */
    void onCumulativeAck(int ackPsn, long now) {
        if (before(ackPsn, sndUna) || before(sndNxt, ackPsn)) {
            return; // old (reordered) or beyond what we sent
        }
        if (ackPsn == sndUna) {
            return;
        }
        qp.countersSet().increment(Counter.ACKS_RECEIVED);
        int newly = 0;
        for (int psn = sndUna; psn != ackPsn; psn++) {
            SendSegment s = window[psn & windowMask];
            device.timers().cancel(s);
            noteDelivered(s, now);
            leavePipe(s);
            if (!s.sacked) {
                newly++;
            }
            s.acked = true;
            if ((s.flags & F_LAST) != 0 && s.wqe != null) {
                s.wqe.acked = true;
            }
            if (s.job != null && (s.flags & F_LAST) != 0) {
                freeJobs.add(s.job);
            }
            s.wqe = null;
            s.job = null;
        }
        SendSegment newest = window[(ackPsn - 1) & windowMask];
        if (!newest.sacked) {
            sampleRtt(newest, now);
        }
        sndUna = ackPsn;
        if (sndUna != sndNxt) {
            // progress: the new oldest segment starts a fresh retry budget (IB resets its retry
            // counter on progress); it may have timed out while it waited behind a hole
            window[sndUna & windowMask].retries = 0;
        }
        if (before(highestSacked, sndUna)) {
            highestSacked = sndUna;
        }
        rnrRetriesUsed = 0;
        if (readAtomicUnacked && before(lastReadAtomicPsn, sndUna)) {
            readAtomicUnacked = false;
        }
        if (inRecovery && !before(sndUna, recoveryPsn)) {
            inRecovery = false;
        }
        if (cwnd < ssthresh) {
            cwnd = Math.min(window.length, cwnd + newly);
        } else {
            cwnd = Math.min(window.length, cwnd + (double) newly / cwnd);
        }
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
            long sample = now - s.sentAt;
            rttVarNanos += (Math.abs(sample - srttNanos) - rttVarNanos) / 4;
            srttNanos += (sample - srttNanos) / 8;
        }
    }

    /** An explicit ACK or NAK packet (with optional SACK blocks). */
    void onAckPacket(AckFrame h, long now) {
        int ackPsn = h.ackPsn();
        onWindowUpdate(h.window());
        int syndrome = h.syndrome();
        switch (syndrome) {
            case SYNDROME_ACK -> {
                boolean duplicate = ackPsn == sndUna && sndUna != sndNxt;
                onCumulativeAck(ackPsn, now);
                if (ackPsn == sndUna && sndUna != sndNxt) {
                    // the responder still waits for this PSN: whatever an earlier SACK said, it needs it
                    window[sndUna & windowMask].sacked = false;
                }
                int highest = h.sackBits() > 0 ? applySack(h, h.sackBits(), now) : sndUna;
                boolean goBack = h.goBack();
                if (goBack) {
                    highest = sndNxt;
                }
                if ((duplicate || goBack || h.sackBits() > 0) && sndUna != sndNxt) {
                    fastRetransmit(before(sndUna, highest) ? highest : sndUna + 1, now, goBack);
                }
            }
            case SYNDROME_RNR_NAK -> onRnrNak(h.psn(), now);
            default -> onErrorNak(h.psn(), syndrome, now);
        }
    }

    /** Marks the segments the SACK bitmap reports; returns one past the highest (or sndUna). */
    private int applySack(AckFrame h, int bits, long now) {
        int base = h.ackPsn() + 1;
        int highest = sndUna;
        int words = (bits + 63) >>> 6;
        for (int w = 0; w < words; w++) {
            long v = h.sackWord(w);
            while (v != 0) {
                int b = Long.numberOfTrailingZeros(v);
                v &= v - 1;
                int psn = base + w * 64 + b;
                if (w * 64 + b >= bits || !inWindow(psn)) {
                    continue;
                }
                SendSegment s = window[psn & windowMask];
                if (!s.sacked) {
                    s.sacked = true;
                    leavePipe(s);
                    device.timers().cancel(s);
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

    /** Loss detection (as TCP RACK): resends the un-SACKed segments below {@code highest} judged lost. */
    private void fastRetransmit(int highest, long now, boolean goBack) {
        long reorderWindow = reorderWindow();
        lastLossScanNanos = now;
        boolean any = false;
        for (int psn = sndUna; before(psn, highest); psn++) {
            SendSegment s = window[psn & windowMask];
            if (!s.sacked && !s.acked && !s.queuedForRetransmit
                    && (isLost(s, now, reorderWindow) || (goBack && now - s.sentAt > srttNanos))) {
                leavePipe(s);
                queueRetransmit(s);
                qp.countersSet().increment(Counter.FAST_RETRANSMITS);
                any = true;
            }
        }
        if (any && !inRecovery) {
            inRecovery = true;
            recoveryPsn = sndNxt;
            ssthresh = Math.max(MIN_CWND, cwnd / 2);
            cwnd = ssthresh;
        }
    }

    private void onRnrNak(int psn, long now) {
        qp.countersSet().increment(Counter.RNR_NAKS_RECEIVED);
        if (!inWindow(psn) || halted || (rnrWaiting && psn == rnrPsn)) {
            return; // stale, or a duplicate of the NAK we are already waiting out
        }
        onCumulativeAck(psn, now);
        if (config.rnrRetry() != QpConfig.RNR_RETRY_INFINITE && ++rnrRetriesUsed > config.rnrRetry()) {
            failAt(psn, WcStatus.RNR_RETRY_EXC_ERR);
            return;
        }
        rnrWaiting = true;
        rnrPsn = psn;
        rnrUntil = now + rnrTimerNanos;
        retransmitQueue.clear();
        window[psn & windowMask].sacked = false; // refused in order: the responder dropped it
        for (int p = psn; before(p, sndNxt); p++) {
            SendSegment s = window[p & windowMask];
            s.queuedForRetransmit = false;
            if (!s.sacked) {
                device.timers().cancel(s);
                queueRetransmit(s);
            }
        }
    }

    private void onErrorNak(int psn, int syndrome, long now) {
        qp.countersSet().increment(Counter.NAKS_RECEIVED);
        if (!inWindow(psn)) {
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

    /** Marks the request that owns {@code psn} as failed; the completer reports it in order. */
    private void failAt(int psn, WcStatus status) {
        SendSegment s = window[psn & windowMask];
        if (s.wqe != null) {
            s.wqe.status = status;
            s.wqe.allSent = true;
            stopSending();
        } else {
            fail(status);
        }
    }

    /** Stops all transmission of this queue pair; it is about to enter ERR. */
    private void stopSending() {
        for (int p = sndUna; before(p, sndNxt); p++) {
            SendSegment s = window[p & windowMask];
            if (s != null) {
                device.timers().cancel(s);
            }
        }
        retransmitQueue.clear();
        responses.clear();
        sndUna = sndNxt;
        pipe = 0;
        halted = true;
    }

    /** A fatal error for the stream: the oldest unfinished request gets {@code status}, the rest flush. */
    void fail(WcStatus status) {
        stopSending();
        completeInOrder();
        if (sqCompleted != qp.sqPosted()) {
            SendWqe w = qp.sendWqe(sqCompleted);
            w.status = status;
        }
        completeInOrder();
        qp.enterError();
    }

    /** Response data for one of our reads. */
    void onReadResponse(ResponseFrame h, MemorySegment packet, int payloadLength, long now) {
        SendWqe w = responseTarget(h.ssn(), Opcode.RDMA_READ);
        if (w == null) {
            qp.countersSet().increment(Counter.BAD_PACKETS);
            return;
        }
        if (h.isError()) {
            w.status = remoteError(h.errorStatus());
            responseFinished(w);
            return;
        }
        long offset = h.readOffset();
        if (offset < 0 || payloadLength > w.length - w.responseBytes || offset > w.length - payloadLength) {
            qp.countersSet().increment(Counter.BAD_PACKETS);
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
    void onAtomicResponse(ResponseFrame h) {
        SendWqe w = responseTarget(h.ssn(), null);
        if (w == null || !w.opcode.isAtomic()) {
            qp.countersSet().increment(Counter.BAD_PACKETS);
            return;
        }
        if (h.isError()) {
            w.status = remoteError(h.errorStatus());
        } else {
            MemorySegment value = device.scratch8();
            value.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, h.atomicValue());
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
        if (ssn < sqCompleted || ssn >= sqStarted + 1 || ssn >= qp.sqPosted()) {
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
        outstandingReadAtomic--;
    }

    // ---------------------------------------------------------------- completion

    /** Completes finished requests in post order. Returns how many. */
    int completeInOrder() {
        int n = 0;
        long posted = qp.sqPosted();
        while (sqCompleted != posted) {
            SendWqe w = qp.sendWqe(sqCompleted);
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
            sqCompleted++;
            if (sqStarted < sqCompleted) {
                sqStarted = sqCompleted;
            }
            n++;
            if (st != WcStatus.SUCCESS) {
                stopSending();
                qp.enterError();
                return n;
            }
        }
        return n;
    }

    /** Completes every remaining request with WR_FLUSH_ERR (queue pair in ERR). */
    int flush() {
        int n = 0;
        long posted = qp.sqPosted();
        while (sqCompleted != posted) {
            SendWqe w = qp.sendWqe(sqCompleted);
            qp.completeSend(w, WcStatus.WR_FLUSH_ERR);
            w.release();
            sqCompleted++;
            n++;
        }
        sqStarted = sqCompleted;
        outstandingReadAtomic = 0;
        return n;
    }

    /** Cancels every timer (queue pair destroyed or in ERR). */
    void shutdown() {
        stopSending();
        responses.clear();
    }
}
