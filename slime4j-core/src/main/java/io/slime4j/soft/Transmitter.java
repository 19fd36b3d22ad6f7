package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;

import io.slime4j.verbs.WcStatus;

import java.lang.foreign.MemorySegment;

/**
 * Builds the packet of a {@link SendSegment} in the device's transmit buffer and sends it: the
 * header with the piggy-backed cumulative ACK of the inbound stream, the payload gathered from
 * registered memory (or left there for a port that gathers), and the segment's bookkeeping (send
 * time, pipe, retransmit timer). Used for first transmissions and retransmissions alike.
 * Progress agent thread only.
 */
final class Transmitter {
    private final SoftQueuePair qp;
    private final SoftDevice device;
    private final OutboundStream stream;
    private final LossRecovery loss;
    private final SendProgress progress;
    private final PiggyBack piggyBack;
    private final int tinyMessageSize;

    /** The inbound side's cumulative ACK, carried on every data packet. */
    interface PiggyBack {
        /** The next PSN expected from the peer. */
        int expectedPsn();

        /** A packet carrying {@link #expectedPsn()} was just sent. */
        void ackCarried();
    }

    Transmitter(SoftQueuePair qp, SoftDevice device, OutboundStream stream, LossRecovery loss, SendProgress progress,
                PiggyBack piggyBack) {
        this.qp = qp;
        this.device = device;
        this.stream = stream;
        this.loss = loss;
        this.progress = progress;
        this.piggyBack = piggyBack;
        this.tinyMessageSize = device.softConfig().tinyMessageSize();
    }

    /** Builds the packet of {@code s} and sends it; false if a local memory error failed its request. */
    boolean transmit(SendSegment s, long now, boolean retransmission) {
        PacketOutput out = device.output();
        HeaderFlyweight h = out.header();
        DataFrame d = out.data();
        ResponseFrame r = out.response();
        MemorySegment buf = h.segment();
        int flags = s.flags | F_ACK | (retransmission ? F_RESENT : 0);
        if (!progress.readAtomicUnacked) {
            flags &= ~F_ORDERED; // no read or atomic is waiting to execute before it any more
        }
        h.start(s.type, flags, qp.peerQpn(), qp.peerToken(), s.psn).ackPsn(piggyBack.expectedPsn());
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
                        if (w.numSge == 1 && s.payloadLength > 0 && out.gathers()) {
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
                    default -> d.remoteAddress(w.remoteAddress).ssn(w.ssn).compareAdd(w.compareAdd).swap(w.swap);
                }
            } else {
                ResponseJob j = s.job;
                r.ssn(j.ssn).readLength(j.length).readOffset(s.msgOffset);
                if (j.atomic) {
                    r.atomicValue(j.atomicValue);
                } else if (s.payloadLength > 0 && j.status == null && out.gathers()) {
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
                progress.stopNew = true;
                return false;
            }
            r.flags(r.flags() | F_ERROR);
            r.errorStatus(WcStatus.REM_ACCESS_ERR.ordinal());
            length = HEADER_LENGTH;
        }
        stream.sent(s, now);
        if (!retransmission) {
            device.timers().schedule(s, now + loss.rto());
        } else {
            s.retransmitted = true;
        }
        // the priority channel is drained first, so a data packet may take it only when nothing of
        // this stream is in flight before it: otherwise it would overtake and look like a loss
        boolean priority = length <= tinyMessageSize && s.psn == stream.una();
        // the tail of a message of several packets is not coalesced: it leaves as the last, shorter
        // datagram of the GSO run of the packets before it, not in a system call of its own
        boolean coalesce = s.msgOffset == 0;
        if (gatherFrom != null) {
            out.send(qp, HEADER_LENGTH, gatherFrom, gatherOffset, s.payloadLength, priority, coalesce);
        } else {
            out.send(qp, length, priority, coalesce);
        }
        piggyBack.ackCarried();
        return true;
    }

    /** Copies a read response's payload from the target region, or turns the packet into an error response. */
    private int buildReadPayload(ResponseFrame r, ResponseJob j, SendSegment s, int length) {
        KeyTable.Entry e = j.status == null ? device.keyTable().byRemoteKey(j.remoteKey) : null;
        long off = e == null ? -1 : e.offsetOf(j.address + s.msgOffset, s.payloadLength);
        if (off < 0) {
            j.status = j.status == null ? WcStatus.REM_ACCESS_ERR : j.status;
            r.flags(r.flags() | F_ERROR);
            r.errorStatus(j.status.ordinal());
            return HEADER_LENGTH;
        }
        MemorySegment.copy(e.segment, off, r.segment(), HEADER_LENGTH, s.payloadLength);
        return length;
    }
}
