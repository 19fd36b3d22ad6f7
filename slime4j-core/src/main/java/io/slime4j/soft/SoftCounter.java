package io.slime4j.soft;

/**
 * The soft engine's protocol counters: what its reliable stream did (retransmissions, timeouts,
 * ACKs, NAKs) and what it dropped (bad, stray or spoofed packets), kept per device and per queue
 * pair next to the hardware-neutral {@link io.slime4j.verbs.Counter}s, and read through
 * {@link SoftCounters}. Ids are stable and shared with {@code Counter}'s id space (no id is used
 * twice), so external tools may rely on them.
 */
public enum SoftCounter {
    FAST_RETRANSMITS(5, "Segments retransmitted on a duplicate ACK"),
    OUT_OF_ORDER(8, "Segments received out of order"),
    OUT_OF_WINDOW(9, "Segments dropped outside the receive window"),
    BAD_PACKETS(10, "Packets dropped: bad length, version or opcode"),
    BAD_TOKEN(11, "Packets dropped: wrong connection token"),
    UNKNOWN_DESTINATION(12, "Packets dropped: no such queue pair or not connected"),
    UNKNOWN_SOURCE(13, "Packets dropped: source is not the connected peer"),
    ACKS_SENT(14, "Explicit ACK packets sent"),
    ACKS_RECEIVED(15, "ACK or NAK information processed"),
    SEND_DROPS(23, "Packets the wire could not send (buffer full)"),
    DATAGRAMS_SENT(26, "Datagrams handed to the wire (a bundle of coalesced packets counts once)"),
    COALESCED_PACKETS_SENT(27, "Packets that left coalesced with others in one bundle datagram"),
    BUNDLES_RECEIVED(28, "Bundle datagrams received (each split into its packets)"),
    BAD_BUNDLES(29, "Bundles cut short: a frame length below a header or past the datagram, or a wrong frame count"),
    TAIL_LOSS_PROBES(30, "Tail-loss probes: the last segment not known delivered resent when deliveries stopped for two round trips"),
    POSTS_HELD(31, "Posted requests held for the device's next duty cycle (WorkRequest.more), counted as that cycle begins; not those whose poster ran the cycle at HeldPosts' limits"),
    WAITER_SPIN_HITS(32, "Spins of a default device's blocking waiter (SoftConfig.waiterSpin) that something readable ended before they ran out: a datagram (not necessarily the one waited for), a completion pushed elsewhere, a command"),
    WAITER_BLOCKS(33, "Blocks of a default device's waiters on its sockets (epoll), with or without a spin before them"),
    WAITER_SPIN_MISSES(34, "Spins of a default device's blocking waiter that ran out with nothing readable, each up to SoftConfig.waiterSpin of CPU");

    private final int id;
    private final String label;

    SoftCounter(int id, String label) {
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
