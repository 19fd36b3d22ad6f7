package io.slime4j.soft;

/**
 * How many packets a queue pair sends per duty cycle at most (per kind: retransmissions, responses,
 * new requests): at least {@link #MIN_PACKETS}, and a whole number of the runs a batching wire
 * (UDP GSO) sends in one call, so that the device's flush at the end of the duty cycle does not cut
 * a run short. A wire sends a run of datagrams of {@code packetBytes} in one call up to
 * {@code maxDatagramBytes} (its largest datagram, 65,507 bytes for UDP: one call's limit) and
 * {@link #MAX_RUN} datagrams. At 1,472-byte packets (MTU 1500) a run is 44 packets and the
 * burst 88 (64 would leave as 44 + 20); at 60 KiB packets (loopback) a run is one packet and the
 * burst 64, as before.
 */
final class SendBurst {
    /** The fewest packets per duty cycle (the burst before runs were counted). */
    static final int MIN_PACKETS = 64;
    /** The most datagrams a batching wire sends in one call (the kernel's UDP GSO limit). */
    static final int MAX_RUN = 64;

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
        return run * ((MIN_PACKETS + run - 1) / run);
    }
}
