package io.slime4j.soft;

/**
 * How many packets a queue pair sends per duty cycle at most (per kind: retransmissions, responses,
 * new requests). A wire that batches (UDP GSO) sends a run of datagrams of {@code packetBytes} in
 * one call up to {@code maxDatagramBytes} (its largest datagram, 65,507 bytes for UDP: one call's
 * limit) and {@link #MAX_RUN} datagrams, and up to {@link #BATCH_RUNS} such runs in one system call
 * ({@code sendmmsg} of the runs held until the duty cycle's flush). The burst is that many whole
 * runs, so that a duty cycle fills one call and its flush never cuts a run short; at least
 * {@link #MIN_PACKETS}. At 1,472-byte packets (MTU 1500) a run is 44 packets and the burst 352
 * (before: 88, two runs; the duty cycle's fixed costs, its socket polls among them, then came four
 * times as often per byte: docs/PERFORMANCE.md); at 60 KiB packets (loopback) a run is one packet
 * and the burst 64, as before.
 */
final class SendBurst {
    /** The fewest packets per duty cycle (the burst before runs were counted). */
    static final int MIN_PACKETS = 64;
    /** The most datagrams a batching wire sends in one run (the kernel's UDP GSO limit). */
    static final int MAX_RUN = 64;
    /** The most runs a batching wire sends in one call (the UDP wire's {@code sendmmsg} of held runs). */
    static final int BATCH_RUNS = 8;

    private SendBurst() {}

    /** The burst for packets of {@code packetBytes} (header included) on a wire whose largest datagram is {@code maxDatagramBytes}. */
    static int packets(int packetBytes, int maxDatagramBytes) {
        if (packetBytes <= 0) {
            throw new IllegalArgumentException("packetBytes must be positive, was " + packetBytes);
        }
        int run = Math.min(MAX_RUN, maxDatagramBytes / packetBytes);
        if (run < 2) {
            return MIN_PACKETS;
        }
        return run * Math.max(BATCH_RUNS, (MIN_PACKETS + run - 1) / run);
    }
}
