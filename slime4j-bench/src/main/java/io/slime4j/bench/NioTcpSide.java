package io.slime4j.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * What a Java user would write with TCP: one blocking NIO {@link SocketChannel} with TCP_NODELAY,
 * one {@code write} per message (a stream, so the receiver counts bytes), a 1-byte
 * acknowledgement after each bulk round so the sender times delivery, not buffering.
 */
final class NioTcpSide extends Side {
    private SocketChannel channel;
    private ByteBuffer buffer;

    NioTcpSide(CompareOptions options, Link link, boolean isA) {
        super(options, link, isA);
    }

    @Override
    void open() throws Exception {
        if (isA) {
            try (ServerSocketChannel server = ServerSocketChannel.open()) {
                server.bind(new InetSocketAddress("127.0.0.1", 0));
                link.toPeer("PORT " + ((InetSocketAddress) server.getLocalAddress()).getPort());
                channel = server.accept(); // the peer connects at once; a hang ends with the side watchdog
            }
        } else {
            channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", Integer.parseInt(link.fromPeer("PORT"))));
        }
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        buffer = ByteBuffer.allocateDirect(Math.max(1 << 20, options.maxBandwidthSize()));
    }

    @Override
    void rate(String variant, int size) throws IOException {
        int count = rateCount();
        if (isA) {
            long total = (long) count * size;
            long firstMark = (long) (warm() + 1) * size;
            long received = 0;
            long first = 0;
            while (received < total) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), Math.min(64 << 10, total - received)));
                int n = channel.read(buffer);
                if (n < 0) {
                    throw new IOException("TCP peer closed after " + received + " of " + total + " bytes");
                }
                if (received < firstMark && received + n >= firstMark) {
                    first = System.nanoTime();
                }
                received += n;
            }
            link.result("rate." + size, perSecond(count - 1 - warm(), System.nanoTime() - first));
        } else {
            for (int i = 0; i < count; i++) {
                buffer.clear().limit(size);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }
        }
    }

    @Override
    void rtt(int size) throws IOException {
        int n = options.roundTrips;
        int total = n + options.rttWarmup;
        long[] samples = new long[n];
        for (int i = 0; i < total; i++) {
            if (isA) {
                readFully(size);
                writeFully(size);
            } else {
                long start = System.nanoTime();
                writeFully(size);
                readFully(size);
                if (i >= total - n) {
                    samples[i - (total - n)] = System.nanoTime() - start;
                }
            }
        }
        if (!isA) {
            reportRtt(samples);
        }
    }

    /**
     * A warm-up of rounds of a tenth of the transfers, each acknowledged, then a byte telling the
     * reader whether another follows (the writer's clock decides, {@link #warmBandwidth}); then the
     * timed round.
     */
    @Override
    boolean bandwidth(int size) throws IOException {
        int n = options.transfers(size);
        int warmCount = Math.max(1, n / 10);
        if (isA) {
            do {
                receive((long) warmCount * size);
            } while (readByte() != 0);
            receive((long) n * size);
        } else {
            long until = warmUntil();
            boolean more;
            do {
                send(size, warmCount);
                more = stillWarming(until);
                writeByte(more ? 1 : 0);
            } while (more);
            long start = System.nanoTime();
            send(size, n);
            link.result("bw." + size, (double) size * n / ((System.nanoTime() - start) / 1e3));
        }
        return true;
    }

    /** Reads {@code total} bytes of a bulk round, then acknowledges them with one byte. */
    private void receive(long total) throws IOException {
        long remaining = total;
        while (remaining > 0) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), remaining));
            if (channel.read(buffer) < 0) {
                throw new IOException("TCP peer closed with " + remaining + " bytes to go");
            }
            remaining -= buffer.position();
        }
        writeFully(1);
    }

    /** Writes {@code count} messages of {@code size} bytes and waits for the reader's acknowledgement. */
    private void send(int size, int count) throws IOException {
        for (int i = 0; i < count; i++) {
            writeFully(size);
        }
        readFully(1);
    }

    private void writeByte(int v) throws IOException {
        buffer.clear().put((byte) v).flip();
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    private int readByte() throws IOException {
        readFully(1);
        return buffer.get(0);
    }

    private void writeFully(int size) throws IOException {
        buffer.clear().limit(size);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    private void readFully(int size) throws IOException {
        buffer.clear().limit(size);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new IOException("TCP peer closed");
            }
        }
    }

    @Override
    void close() throws IOException {
        if (channel != null) {
            channel.close();
        }
    }
}
