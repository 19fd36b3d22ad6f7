package io.slime4j.verbs;

/**
 * Transport counters, kept per device and per queue pair, each with a stable id and a label (the
 * ids never change meaning, so external tools may rely on them).
 *
 * <p>The work-request counters are exact per queue pair: {@link #WR_POSTED} counts every accepted
 * {@link QueuePair#postSend} (a refused post counts nothing), {@link #RECV_WR_POSTED} every accepted
 * {@link QueuePair#postRecv}; {@link #COMPLETIONS_GENERATED} counts each completion entered into a
 * completion queue on the queue pair's behalf (with selective signaling: signaled successes, every
 * failure and every flush; a completion lost to an overflowing queue is not counted) and
 * {@link #COMPLETIONS_POLLED} each one handed to a poller. Generated is counted before the
 * completion becomes visible, so a reader never sees more polled than generated.
 */
public enum Counter {
    PACKETS_SENT(0, "Packets sent"),
    BYTES_SENT(1, "Bytes sent (headers included)"),
    PACKETS_RECEIVED(2, "Packets received"),
    BYTES_RECEIVED(3, "Bytes received (headers included)"),
    RETRANSMITS(4, "Segments retransmitted"),
    FAST_RETRANSMITS(5, "Segments retransmitted on a duplicate ACK"),
    TIMEOUTS(6, "Retransmit timer expiries"),
    DUPLICATES(7, "Duplicate segments received"),
    OUT_OF_ORDER(8, "Segments received out of order"),
    OUT_OF_WINDOW(9, "Segments dropped outside the receive window"),
    BAD_PACKETS(10, "Packets dropped: bad length, version or opcode"),
    BAD_TOKEN(11, "Packets dropped: wrong connection token"),
    UNKNOWN_DESTINATION(12, "Packets dropped: no such queue pair or not connected"),
    UNKNOWN_SOURCE(13, "Packets dropped: source is not the connected peer"),
    ACKS_SENT(14, "Explicit ACK packets sent"),
    ACKS_RECEIVED(15, "ACK or NAK information processed"),
    RNR_NAKS_SENT(16, "RNR NAKs sent"),
    RNR_NAKS_RECEIVED(17, "RNR NAKs received"),
    NAKS_SENT(18, "Error NAKs sent"),
    NAKS_RECEIVED(19, "Error NAKs received"),
    WR_POSTED(20, "Send work requests posted (receives: RECV_WR_POSTED)"),
    COMPLETIONS_GENERATED(21, "Completions generated (send and receive side)"),
    COMPLETIONS_POLLED(22, "Completions polled (send and receive side)"),
    SEND_DROPS(23, "Packets the wire could not send (buffer full)"),
    AGENT_ERRORS(24, "Exceptions caught by the progress agent"),
    RECV_WR_POSTED(25, "Receive work requests posted");

    private final int id;
    private final String label;

    Counter(int id, String label) {
        this.id = id;
        this.label = label;
    }

    /** Stable id. */
    public int id() {
        return id;
    }

    /** Human-readable label. */
    public String label() {
        return label;
    }
}
