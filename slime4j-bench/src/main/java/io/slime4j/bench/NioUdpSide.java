package io.slime4j.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * Raw NIO UDP, the unreliable ceiling: two connected {@link DatagramChannel}s, one datagram per
 * message, bulk data as 65,000-byte datagrams, 4 MiB socket buffers (as far as the kernel grants).
 * Nothing is retransmitted: the receiver reports what arrived and a note gives the loss.
 */
final class NioUdpSide extends Side {
    private static final int DATAGRAM = 65_000;
    private static final long IDLE_MILLIS = 300;
    private DatagramChannel channel;
    private Selector selector;
    private ByteBuffer buffer;

    NioUdpSide(CompareOptions options, Link link, boolean isA) {
        super(options, link, isA);
    }

    @Override
    void open() throws Exception {
        channel = DatagramChannel.open();
        channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
        channel.setOption(StandardSocketOptions.SO_SNDBUF, 4 << 20);
        channel.bind(new InetSocketAddress("127.0.0.1", 0));
        link.toPeer("PORT " + ((InetSocketAddress) channel.getLocalAddress()).getPort());
        channel.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(link.fromPeer("PORT"))));
        channel.configureBlocking(false);
        selector = Selector.open();
        channel.register(selector, SelectionKey.OP_READ);
        buffer = ByteBuffer.allocateDirect(1 << 16);
    }

    /** Receives one datagram; its length, or -1 when nothing came for {@code idleMillis}. */
    private int receive(long idleMillis) throws IOException {
        buffer.clear();
        int n = channel.read(buffer);
        if (n > 0) {
            return n;
        }
        long deadline = System.nanoTime() + idleMillis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            selector.select(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
            selector.selectedKeys().clear();
            n = channel.read(buffer);
            if (n > 0) {
                return n;
            }
        }
        return -1;
    }

    /** Reads and drops what waits in the socket: left unread, it would pair with a ping sent after it. */
    private void discardWaiting() throws IOException {
        int n;
        do {
            n = receive(0);
        } while (n > 0);
    }

    private void sendDatagram(int size) throws IOException {
        buffer.clear().limit(size);
        while (channel.write(buffer) == 0) {
            Thread.onSpinWait(); // non-blocking socket with a full send buffer
        }
    }

    @Override
    void rate(String variant, int size) throws IOException {
        int count = rateCount();
        if (isA) {
            int received = 0;
            long first = 0;
            long last = 0;
            long idle = options.timeoutSeconds * 1000;
            while (received < count && receive(idle) > 0) {
                last = System.nanoTime();
                if (received == warm()) {
                    first = last;
                }
                received++;
                idle = IDLE_MILLIS;
            }
            link.result("rate." + size, received > warm() + 1 ? perSecond(received - 1 - warm(), last - first) : 0);
            lossNote("rate." + size, count, received);
        } else {
            for (int i = 0; i < count; i++) {
                sendDatagram(size);
            }
        }
    }

    private void lossNote(String metric, long sent, long received) {
        if (received < sent) {
            link.note(String.format("udp %s: %.1f%% of datagrams lost (no retransmission), figure counts delivered only",
                    metric, 100.0 * (sent - received) / sent));
        }
    }

    @Override
    void rtt(int size) throws IOException {
        int n = options.roundTrips;
        int total = n + options.rttWarmup;
        if (isA) {
            while (receive(options.timeoutSeconds * 1000) > 1) {
                sendDatagram(size);
            }
            return;
        }
        discardWaiting(); // a reply of an earlier run's (a warm pass's) that came after its ping was resent
        long[] samples = new long[n];
        int lost = 0;
        for (int i = 0; i < total; i++) {
            long start = System.nanoTime();
            sendDatagram(size);
            if (receive(IDLE_MILLIS) < 0) {
                lost++;
                i--;
                if (lost > 1000) {
                    throw new IOException("udp: more than 1000 pings lost");
                }
                continue;
            }
            if (i >= total - n) {
                samples[i - (total - n)] = System.nanoTime() - start;
            }
        }
        sendDatagram(1); // the end marker
        reportRtt(samples);
        if (lost > 0) {
            link.note("udp rtt: " + lost + " pings lost and resent (each wait of " + IDLE_MILLIS + " ms not counted)");
        }
    }

    @Override
    boolean bandwidth(int size) throws IOException {
        long total = (long) options.transfers(size) * size;
        long datagrams = (total + DATAGRAM - 1) / DATAGRAM;
        if (isA) {
            long bytes = 0;
            long count = 0;
            long first = 0;
            long last = 0;
            long idle = options.timeoutSeconds * 1000;
            int n;
            while (count < datagrams && (n = receive(idle)) > 0) {
                last = System.nanoTime();
                if (count == 0) {
                    first = last;
                } else {
                    bytes += n; // the first datagram only starts the clock
                }
                count++;
                idle = IDLE_MILLIS;
            }
            link.result("bw." + size, last > first ? bytes / ((last - first) / 1e3) : 0);
            lossNote("bw." + size, datagrams, count);
        } else {
            // no warm-up rounds (a lost datagram is not resent: a warm round's would have to be told apart
            // from the timed ones'); nothing is timed before --warmup seconds after the connect, though
            try {
                awaitWarmUp();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the warm-up to end", e);
            }
            long left = total;
            while (left > 0) {
                int len = (int) Math.min(DATAGRAM, left);
                sendDatagram(len);
                left -= len;
            }
        }
        return true;
    }

    @Override
    void close() throws IOException {
        if (selector != null) {
            selector.close();
        }
        if (channel != null) {
            channel.close();
        }
    }
}
