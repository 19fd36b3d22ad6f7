package io.slime4j.soft;

/**
 * How much of the send window a stream may have in the network at once, and how that changes
 * with deliveries and losses. {@link LossRecovery} tells it what happened; the requester asks it
 * before each new packet. Progress agent thread only.
 */
interface CongestionControl {

    /** Whether one more packet may enter a pipe of {@code pipe} packets. */
    boolean allows(int pipe);

    /** {@code newlyAcked} packets were delivered; the cumulative ACK is now {@code una}. */
    void onAck(int newlyAcked, int una);

    /** Loss detected from ACK information (not a timeout) while {@code nxt} is the next PSN. */
    void onLoss(int nxt);

    /** The retransmit timer of {@code psn} expired while {@code nxt} is the next PSN. */
    void onTimeout(int psn, int nxt);

    /** The current window, in packets (for tests and diagnostics). */
    double window();
}
