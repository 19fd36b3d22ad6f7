package io.slime4j.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The baseline a Java user would write: a blocking NIO TCP stream of the same messages. The
 * server side reads everything and answers one byte per round, so the client times delivery,
 * not just buffering. Each side cycles through a footprint of message buffers, as the slime4j
 * writes it is compared with do.
 */
final class TcpStream {
    private static final int MAX_READ = 1 << 20;

    private TcpStream() {}

    /**
     * Served side: accepts one connection, then per round reads the total and the message size, and
     * that many bytes into a ring of {@code buffers} buffers of that size (at most 1 MiB a read), and acks.
     */
    static void serve(Handshake handshake, String host, int maxSize, int buffers) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(host, 0));
            handshake.send("PORT " + ((InetSocketAddress) server.getLocalAddress()).getPort());
            try (SocketChannel channel = server.accept()) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ByteBuffer footprint = ByteBuffer.allocateDirect(Math.multiplyExact(maxSize, buffers));
                ByteBuffer header = ByteBuffer.allocate(12);
                while (true) {
                    header.clear();
                    if (!readFully(channel, header)) {
                        return;
                    }
                    long remaining = header.flip().getLong();
                    int size = header.getInt();
                    if (size <= 0 || size > maxSize) {
                        throw new IOException("message size " + size + " outside 1.." + maxSize);
                    }
                    ByteBuffer buffer = footprint.clear().slice(0, size * buffers);
                    while (remaining > 0) {
                        if (buffer.position() == buffer.capacity()) {
                            buffer.clear();
                        }
                        buffer.limit((int) Math.min(buffer.capacity(), buffer.position() + Math.min(MAX_READ, remaining)));
                        int n = channel.read(buffer);
                        if (n < 0) {
                            return;
                        }
                        remaining -= n;
                    }
                    channel.write(ByteBuffer.wrap(new byte[] {1}));
                }
            }
        }
    }

    private static boolean readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                return false;
            }
        }
        return true;
    }

    /** Client side: one connection, rounds of {@code count} messages of {@code size} bytes from {@code buffers} buffers in turn. */
    static final class Client implements AutoCloseable {
        private final SocketChannel channel;
        private final ByteBuffer footprint;
        private final int buffers;

        Client(String host, int port, int maxSize, int buffers) throws IOException {
            channel = SocketChannel.open(new InetSocketAddress(host, port));
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            footprint = ByteBuffer.allocateDirect(Math.multiplyExact(maxSize, buffers));
            this.buffers = buffers;
        }

        /** Sends {@code count} messages of {@code size} bytes and waits for the ack; returns nanoseconds. */
        long round(int size, int count) throws IOException {
            long start = System.nanoTime();
            ByteBuffer header = ByteBuffer.allocate(12).putLong((long) size * count).putInt(size).flip();
            while (header.hasRemaining()) {
                channel.write(header);
            }
            for (int i = 0; i < count; i++) {
                int at = (i % buffers) * size;
                ByteBuffer message = footprint.limit(at + size).position(at);
                while (message.hasRemaining()) {
                    channel.write(message);
                }
            }
            ByteBuffer ack = ByteBuffer.allocate(1);
            if (!readFully(channel, ack)) {
                throw new IOException("TCP server closed the connection");
            }
            return System.nanoTime() - start;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
