package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import static io.slime4j.soft.HeaderFlyweight.*;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.WcStatus;

/**
 * The sending role of a queue pair (as rxe_req.c): each duty cycle it sends what the
 * {@link OutboundStream} has queued again, then the responses the responder owes (from the
 * {@link ResponseQueue}), then new send-queue requests cut into packets, as far as the window,
 * the {@link CongestionControl}, the peer's advertised window and the read/atomic limits allow.
 * It never completes anything ({@link Completer}) and never looks at inbound packets.
 * Progress agent thread only.
 */
final class Requester {
    private final SoftQueuePair qp;
    private final SoftDevice device;
    private final QpConfig config;
    private final OutboundStream stream;
    private final CongestionControl congestion;
    private final LossRecovery loss;
    private final ResponseQueue responses;
    private final SendProgress progress;
    private final Transmitter transmitter;
    private final CounterSet counters;
    /** Packets per duty cycle and kind at most ({@link SendBurst}). */
    private final int burst;

    Requester(SoftQueuePair qp, SoftDevice device, OutboundStream stream, CongestionControl congestion,
              LossRecovery loss, ResponseQueue responses, SendProgress progress, Transmitter transmitter) {
        this.qp = qp;
        this.device = device;
        this.config = qp.config();
        this.stream = stream;
        this.congestion = congestion;
        this.loss = loss;
        this.responses = responses;
        this.progress = progress;
        this.transmitter = transmitter;
        this.counters = qp.countersSet();
        this.burst = SendBurst.packets(config.mtu() + HEADER_LENGTH, device.maxPacketSize());
    }

    /**
     * Sends what may be sent now: retransmissions, owed responses and (if {@code sendRequests})
     * new requests, after loss detection's turn if {@code detectLoss} (the cycle received first, to the end;
     * see {@link SoftQueuePair#doWork(long, boolean)}). Returns the packets sent. Not called while
     * the stream is halted or an RNR NAK is waited out.
     */
    int doWork(long now, boolean sendRequests, boolean detectLoss) {
        if (detectLoss) {
            loss.onDutyCycle(now);
        }
        int work = sendRetransmits(now);
        work += sendResponses(now);
        if (sendRequests) {
            work += sendRequests(now);
        }
        return work;
    }

    private boolean canSendNew() {
        return stream.hasRoom() && congestion.allows(stream.pipe())
                && stream.peerWindowAllows(config.mtu() + HEADER_LENGTH);
    }

    // ---------------------------------------------------------------- new requests

    private int sendRequests(long now) {
        if (progress.stopNew) {
            return 0;
        }
        int sent = 0;
        while (sent < burst && canSendNew()) {
            if (progress.sqStarted == qp.sqPosted()) {
                break;
            }
            SendWqe w = qp.sendWqe(progress.sqStarted);
            if (!w.started && !start(w)) {
                if (w.status != null) {
                    progress.sqStarted++; // a local error: reported in order by the completer
                }
                break; // or it waits for reads/atomics (limit or fence)
            }
            sent += segment(w, now);
            if (w.allSent) {
                progress.sqStarted++;
            }
        }
        return sent;
    }

    /** Starts a request: checks fences and read limits, resolves local memory. */
    private boolean start(SendWqe w) {
        if (w.opcode.isReadOrAtomic() && progress.outstandingReadAtomic >= config.maxReadAtomic()) {
            return false;
        }
        if (w.fence && progress.outstandingReadAtomic > 0) {
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
            progress.stopNew = true; // later requests must not run at the peer before this one is reported
            return false;
        }
        w.started = true;
        if (w.opcode.consumesReceive()) {
            w.msn = progress.msnNext++;
        }
        if (w.opcode.isReadOrAtomic()) {
            progress.outstandingReadAtomic++;
            w.responseProgressNanos = System.nanoTime();
        }
        return true;
    }

    /** Emits packets of {@code w} while the window allows; returns packets sent. */
    private int segment(SendWqe w, long now) {
        int sent = 0;
        int mtu = config.mtu();
        int type = OpTable.packetType(w.opcode);
        do {
            int flags = w.bytesSent == 0 ? F_FIRST : 0;
            int payload;
            if (OpTable.has(type, OpTable.SEGMENTED)) {
                payload = Math.min(mtu, w.length - w.bytesSent);
            } else if (type == TYPE_READ_REQ) {
                payload = w.length - w.bytesSent; // asked for, not carried
            } else {
                payload = 8;
                if (w.opcode == Opcode.ATOMIC_CMP_SWAP) {
                    flags |= F_CMP_SWAP;
                }
            }
            boolean last = w.bytesSent + payload >= w.length;
            if (last) {
                flags |= F_LAST;
                if (OpTable.has(type, OpTable.SEGMENTED)) {
                    flags |= F_ACK_REQ; // a write or send completes on the ACK: ask for it now (reads and atomics get a response)
                }
                if (w.opcode.hasImmediate()) {
                    flags |= F_IMM;
                }
            }
            if (progress.readAtomicUnacked && !before(progress.lastReadAtomicPsn, stream.una())) {
                flags |= F_ORDERED;
            }
            SendSegment s = stream.claim(type, flags);
            s.wqe = w;
            s.msgOffset = w.bytesSent;
            s.payloadLength = type == TYPE_READ_REQ ? 0 : (type == TYPE_ATOMIC_REQ ? 8 : payload);
            if (type == TYPE_READ_REQ || type == TYPE_ATOMIC_REQ) {
                progress.lastReadAtomicPsn = s.psn;
                progress.readAtomicUnacked = true;
            }
            w.bytesSent += type == TYPE_ATOMIC_REQ ? w.length : payload;
            if (last) {
                w.lastPsn = s.psn;
                w.allSent = true;
            }
            if (!transmitter.transmit(s, now, false)) {
                return sent;
            }
            sent++;
        } while (!w.allSent && sent < burst && canSendNew());
        return sent;
    }

    // ---------------------------------------------------------------- responses we owe the peer

    private int sendResponses(long now) {
        int sent = 0;
        int mtu = config.mtu();
        while (sent < burst && canSendNew() && !responses.isEmpty()) {
            ResponseJob j = responses.peek();
            int type = j.atomic ? TYPE_ATOMIC_RESP : TYPE_READ_RESP;
            int payload = j.atomic ? 0 : Math.min(mtu, j.length - j.queued);
            int flags = (j.queued == 0 ? F_FIRST : 0);
            boolean last = j.queued + payload >= j.length;
            if (last) {
                flags |= F_LAST;
            }
            SendSegment s = stream.claim(type, flags);
            s.job = j;
            s.msgOffset = j.queued;
            s.payloadLength = payload;
            j.queued += payload;
            if (last) {
                responses.removeHead(); // the segment keeps a reference until it is acknowledged
            }
            if (!transmitter.transmit(s, now, false)) {
                return sent;
            }
            if (j.status != null && !last) {
                responses.removeHead(); // an error response ends the read; no more packets for it
            }
            sent++;
        }
        return sent;
    }

    // ---------------------------------------------------------------- retransmissions

    private int sendRetransmits(long now) {
        int sent = 0;
        while (sent < burst && stream.hasRetransmits()) {
            SendSegment s = stream.pollRetransmit();
            if (s.acked || s.sacked || !stream.inWindow(s.psn)) {
                continue;
            }
            transmitter.transmit(s, now, true);
            if (!s.isScheduled()) {
                // after a timeout; a fast retransmission leaves the running timer alone, so that
                // timeouts keep spending the retry budget while the peer is silent
                device.timers().schedule(s, now + loss.backoff(s.retries));
            }
            counters.increment(Counter.RETRANSMITS);
            sent++;
        }
        return sent;
    }
}
