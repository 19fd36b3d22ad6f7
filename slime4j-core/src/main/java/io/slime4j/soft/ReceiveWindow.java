package io.slime4j.soft;

/**
 * The receive window a device advertises to each peer, in bytes of packets of the peer's size
 * (header included; a sender counts every packet in flight as that much): its port's receive
 * buffer, shared among its queue pairs so that all peers together cannot overrun it. The buffer
 * holds at most half its reported size in payload (kernels report twice what was asked for), and
 * fewer small datagrams than that: the kernel charges each datagram its true size, which below
 * 16 KiB is a power-of-two allocation, about twice the datagram (a 4 KiB packet costs about
 * 8.3 KiB on Linux).
 */
final class ReceiveWindow {
    private ReceiveWindow() {
    }

    /** The window for one of {@code queuePairs} queue pairs sharing a buffer of {@code bufferBytes}. */
    static long bytes(long bufferBytes, int queuePairs, int packetBytes) {
        long packets = Math.min(bufferBytes / 2 / packetBytes, bufferBytes / datagramCost(packetBytes));
        int n = Math.max(1, queuePairs);
        return Math.max(2, packets / n) * packetBytes;
    }

    /** What a receive buffer is charged for a datagram of {@code bytes}, at most (Linux, measured on loopback). */
    static long datagramCost(int bytes) {
        return bytes < 16_384 ? Long.highestOneBit((bytes + 384) * 2L - 1) + 1024 : bytes + bytes / 16 + 1024;
    }
}
