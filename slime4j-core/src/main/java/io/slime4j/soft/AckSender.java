package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import static io.slime4j.soft.HeaderFlyweight.*;


/**
 * Sends the receiving side's ACKs and NAKs: builds an {@link AckFrame} with the cumulative ACK,
 * the advertised receive window, the SACK bitmap of the {@link InboundStream} and the go-back
 * flag, when the {@link AckScheduler} says one is due or the responder refuses a packet; and
 * repeats the last error NAK for a queue pair already in ERR. Progress agent thread only.
 */
final class AckSender {
    private final SoftQueuePair qp;
    private final SoftDevice device;
    private final InboundStream inbound;
    private final AckScheduler scheduler;
    private final CounterSet counters;
    private boolean errorNakValid;
    private int errorNakPsn;
    private int errorNakSyndrome;

    AckSender(SoftQueuePair qp, SoftDevice device, InboundStream inbound, AckScheduler scheduler) {
        this.qp = qp;
        this.device = device;
        this.inbound = inbound;
        this.scheduler = scheduler;
        this.counters = qp.countersSet();
    }

    /** Sends an explicit ACK when one is due. Returns 1 if it sent one. */
    int doWork(long now) {
        AckScheduler.Due due = scheduler.due(now, inbound.hasHoles());
        if (due == AckScheduler.Due.NONE) {
            return 0;
        }
        send(SYNDROME_ACK, inbound.expectedPsn());
        scheduler.scheduleRefresh(due, now);
        return 1;
    }

    /** Refuses the packet of {@code psn} with the NAK {@code verdict} calls for. */
    void nak(int psn, Verdict verdict) {
        if (verdict == Verdict.RNR) {
            counters.increment(Counter.RNR_NAKS_SENT);
        } else {
            errorNakValid = true;
            errorNakPsn = psn;
            errorNakSyndrome = verdict.syndrome;
            counters.increment(Counter.NAKS_SENT);
        }
        send(verdict.syndrome, psn);
    }

    /**
     * A packet for a queue pair that entered ERR after NAKing it: the NAK may have been lost, so
     * answer a retransmission of that PSN with the same NAK (else the requester would only see a
     * retry timeout).
     */
    void onPacketInError(HeaderFlyweight h) {
        if (errorNakValid && h.type() != TYPE_ACK && h.psn() == errorNakPsn) {
            send(errorNakSyndrome, errorNakPsn);
        }
    }

    private void send(int syndrome, int psn) {
        int packet = scheduler.packetBytes();
        long window = device.receiveWindowBytes(packet);
        AckFrame ack = device.output().ack();
        ack.start(TYPE_ACK, scheduler.goBack() ? F_GO_BACK : 0, qp.peerQpn(), qp.peerToken(), psn)
                .ackPsn(inbound.expectedPsn());
        ack.window(window).syndrome(syndrome);
        int bits = syndrome == SYNDROME_ACK ? inbound.writeSack(ack, MAX_SACK_BITS) : 0;
        ack.sackBits(bits);
        device.output().send(qp, HEADER_LENGTH + sackBytes(bits), true);
        counters.increment(SoftCounter.ACKS_SENT);
        scheduler.onSent(window, packet);
    }
}
