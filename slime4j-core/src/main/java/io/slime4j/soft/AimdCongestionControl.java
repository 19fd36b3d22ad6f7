package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.before;

/**
 * Additive-increase, multiplicative-decrease congestion control, counted in packets: slow start
 * up to the threshold, then one packet per window per round trip; halve on a loss detected from
 * ACKs (once per recovery episode), restart from the floor on a timeout. The window never drops
 * below a floor, so random (non-congestive) loss cannot starve a queue pair.
 */
final class AimdCongestionControl implements CongestionControl {
    /** Congestion window floor: random (non-congestive) loss must not starve a queue pair. */
    static final int MIN_CWND = 16;

    private final int maxWindow;
    private double cwnd;
    private double ssthresh;
    private boolean inRecovery;
    private int recoveryPsn;

    AimdCongestionControl(int initialWindow, int maxWindow) {
        this.cwnd = initialWindow;
        this.maxWindow = maxWindow;
        this.ssthresh = maxWindow;
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
            ssthresh = Math.max(MIN_CWND, cwnd / 2);
            cwnd = ssthresh;
        }
    }

    @Override
    public void onTimeout(int psn, int nxt) {
        if (!inRecovery || !before(psn, recoveryPsn)) {
            // a timeout means the ACK clock stopped: restart from the floor, as TCP does after an RTO
            ssthresh = Math.max(MIN_CWND, cwnd / 2);
            cwnd = MIN_CWND;
            inRecovery = true;
            recoveryPsn = nxt;
        }
    }

    @Override
    public double window() {
        return cwnd;
    }

    boolean inRecovery() {
        return inRecovery;
    }
}
