package io.slime4j.soft;

/**
 * One entry of a queue pair's send window: a packet that holds a PSN of the outbound stream until
 * it is acknowledged. It stores what is needed to build the packet again for a retransmission
 * (the payload is re-read from registered memory, never copied), and is its own retransmit timer.
 */
final class SendSegment extends TimerWheel.Timer {

    /** Who hears of this segment's retransmit timer expiring. */
    interface Owner {
        void onTimeout(SendSegment s, long now);
    }

    final Owner owner;
    int psn;
    int type;
    int flags;
    /** Request segments: the work request and the payload's offset in its message. */
    SendWqe wqe;
    int msgOffset;
    int payloadLength;
    /** Response segments: the response this packet belongs to. */
    ResponseJob job;
    boolean sacked;
    boolean acked;
    boolean queuedForRetransmit;
    /** Counted in the stream's pipe: on the wire, not yet delivered nor judged lost. */
    boolean inPipe;
    /** Whether it was ever sent again (its ACK then gives no RTT sample: Karn's rule). */
    boolean retransmitted;
    /** When it was last put on the wire. */
    long sentAt;
    /** Its stream's count of transmissions when it was last put on the wire: the order things left in. */
    long sendOrder;
    int retries;

    SendSegment(Owner owner) {
        this.owner = owner;
    }

    void reset(int psn, int type, int flags) {
        this.psn = psn;
        this.type = type;
        this.flags = flags;
        this.wqe = null;
        this.job = null;
        this.msgOffset = 0;
        this.payloadLength = 0;
        this.sacked = false;
        this.acked = false;
        this.queuedForRetransmit = false;
        this.inPipe = false;
        this.retransmitted = false;
        this.sentAt = 0;
        this.sendOrder = 0;
        this.retries = 0;
    }
}
