package io.slime4j.verbs;

/**
 * Transport counters, kept per device and per queue pair, each with a stable id and a label (the
 * ids never change meaning, so external tools may rely on them).
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
    WR_POSTED(20, "Work requests posted"),
    COMPLETIONS_GENERATED(21, "Completions generated"),
    COMPLETIONS_POLLED(22, "Completions polled"),
    SEND_DROPS(23, "Packets the wire could not send (buffer full)"),
    AGENT_ERRORS(24, "Exceptions caught by the progress agent");

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
