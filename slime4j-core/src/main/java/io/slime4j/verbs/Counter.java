package io.slime4j.verbs;

/**
 * Hardware-neutral counters every verbs device keeps, per device and per queue pair, each with a
 * stable id and a label (the ids never change meaning, so external tools may rely on them; ids
 * 4..19 and 23 belonged to protocol counters that an engine keeps itself, e.g. the soft engine's
 * {@code io.slime4j.soft.SoftCounter}, and are not reused).
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
    // The retransmission, RNR and NAK counters are part of the RC contract (the conformance suites
    // check them on every device; InfiniBand HCAs report the same events as hardware counters).
    // Counters only a software wire has (bad or spoofed packets, ACKs, send drops) are the soft
    // engine's own: io.slime4j.soft.SoftCounter.
    PACKETS_SENT(0, "Packets sent"),
    BYTES_SENT(1, "Bytes sent (headers included)"),
    PACKETS_RECEIVED(2, "Packets received"),
    BYTES_RECEIVED(3, "Bytes received (headers included)"),
    RETRANSMITS(4, "Segments retransmitted"),
    TIMEOUTS(6, "Retransmit timer expiries"),
    DUPLICATES(7, "Duplicate segments received"),
    RNR_NAKS_SENT(16, "RNR NAKs sent"),
    RNR_NAKS_RECEIVED(17, "RNR NAKs received"),
    NAKS_SENT(18, "Error NAKs sent"),
    NAKS_RECEIVED(19, "Error NAKs received"),
    WR_POSTED(20, "Send work requests posted (receives: RECV_WR_POSTED)"),
    COMPLETIONS_GENERATED(21, "Completions generated (send and receive side)"),
    COMPLETIONS_POLLED(22, "Completions polled (send and receive side)"),
    AGENT_ERRORS(24, "Exceptions caught by the device's progress thread"),
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
