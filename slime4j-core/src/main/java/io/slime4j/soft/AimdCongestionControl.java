package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.before;

import java.util.function.IntSupplier;

/**
 * Additive-increase, multiplicative-decrease congestion control, counted in packets: slow start
 * up to the threshold, then one packet per window per round trip; halve on a loss detected from
 * ACKs (once per recovery episode), restart from {@link #MIN_CWND} on a timeout.
 *
 * <p>A loss detected from ACKs never takes the window below the <em>loss floor</em>: a quarter of
 * the receive window the peer advertises (at least {@link #MIN_CWND}). Random, non-congestive loss
 * comes every few round trips at a few percent, and halving on each one would hold the window at
 * its floor (a 16-packet floor moved 10-46 MB/s across a 1,500-byte veth under 5% drop, against
 * 2-3 GB/s clean). Loss recovery is selective and fast, so a random loss costs a resend, and the
 * window keeps a share of what the receiver can buffer. IRN (Mittal et al., "Revisiting network
 * support for RDMA", SIGCOMM 2018) goes further: no cut on loss at all, with the packets in flight
 * capped at the path's bandwidth-delay product. The price: on a shared, congested path a queue pair
 * backs off on loss only down to the loss floor. A timeout, the ACK clock stopping, still restarts
 * from {@link #MIN_CWND}, with slow start back up to at least the loss floor.
 */
final class AimdCongestionControl implements CongestionControl {
    /** Congestion window floor after a timeout, and the loss floor's own floor. */
    static final int MIN_CWND = 16;
    /** The loss floor is the peer's advertised window divided by this. */
    static final int LOSS_FLOOR_SHARE = 4;

    private final int maxWindow;
    private final IntSupplier peerWindowPackets;
    private double cwnd;
    private double ssthresh;
    private boolean inRecovery;
    private int recoveryPsn;

    /**
     * @param peerWindowPackets the receive window the peer advertises now, in the packets the
     *                          sender's pipe counts in ({@code OutboundStream.peerWindowPackets};
     *                          read on each loss)
     */
    AimdCongestionControl(int initialWindow, int maxWindow, IntSupplier peerWindowPackets) {
        this.cwnd = initialWindow;
        this.maxWindow = maxWindow;
        this.ssthresh = maxWindow;
        this.peerWindowPackets = peerWindowPackets;
    }

    @Override
    public boolean allows(int pipe) {
        return pipe < (int) cwnd;
    }

    @Override
    public void onAck(int newlyAcked, int una) {
        if (inRecovery && !before(una, recoveryPsn)) {
            inRecovery = false;
        }
        if (cwnd < ssthresh) {
            cwnd = Math.min(maxWindow, cwnd + newlyAcked);
        } else {
            cwnd = Math.min(maxWindow, cwnd + (double) newlyAcked / cwnd);
        }
    }

    @Override
    public void onLoss(int nxt) {
        if (!inRecovery) {
            inRecovery = true;
            recoveryPsn = nxt;
            ssthresh = Math.max(lossFloor(), cwnd / 2);
            cwnd = Math.min(cwnd, ssthresh); // a window already below the floor (after a timeout) is not raised
        }
    }

    @Override
    public void onTimeout(int psn, int nxt) {
        if (!inRecovery || !before(psn, recoveryPsn)) {
            // a timeout means the ACK clock stopped: restart from the floor, as TCP does after an RTO
            ssthresh = Math.max(lossFloor(), cwnd / 2);
            cwnd = MIN_CWND;
            inRecovery = true;
            recoveryPsn = nxt;
        }
    }

    /** The window a loss detected from ACKs cannot push it under. */
    int lossFloor() {
        return Math.min(maxWindow, Math.max(MIN_CWND, peerWindowPackets.getAsInt() / LOSS_FLOOR_SHARE));
    }

    @Override
    public double window() {
        return cwnd;
    }

    boolean inRecovery() {
        return inRecovery;
    }
}
