package io.slime4j.wire.udp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * A {@link UdpSocket} over a non-blocking {@link DatagramChannel}: sends straight from the
 * caller's segment when it is native, else through a copy into a direct buffer, and receives into
 * the port's buffer. {@link DatagramChannel#receive} allocates the source address per datagram.
 */
final class NioUdpSocket extends UdpSocket {
    private final DatagramChannel channel;
    private final int maxDatagramSize;

    // Sending thread only.
    private MemorySegment lastSegment;
    private ByteBuffer lastSegmentBuffer;
    private ByteBuffer copyBuffer;
    private MemorySegment copySegment;

    // Receiving thread only.
    private MemorySegment lastInto;
    private ByteBuffer lastIntoBuffer;
    private int receivedLength;

    NioUdpSocket(DatagramChannel channel, int maxDatagramSize) {
        this.channel = channel;
        this.maxDatagramSize = maxDatagramSize;
    }

    @Override
    boolean send(MemorySegment packet, int length, InetSocketAddress target) throws IOException {
        return channel.send(sendBuffer(packet, length), target) != 0;
    }

    private ByteBuffer sendBuffer(MemorySegment packet, int length) {
        if (packet.isNative() && packet.byteSize() <= Integer.MAX_VALUE) {
            if (packet != lastSegment) {
                lastSegmentBuffer = packet.asByteBuffer();
                lastSegment = packet;
            }
            return lastSegmentBuffer.clear().limit(length);
        }
        if (copyBuffer == null) {
            copyBuffer = ByteBuffer.allocateDirect(maxDatagramSize);
            copySegment = MemorySegment.ofBuffer(copyBuffer);
        }
        MemorySegment.copy(packet, 0, copySegment, 0, length);
        return copyBuffer.clear().limit(length);
    }

    @Override
    InetSocketAddress receive(MemorySegment into) throws IOException {
        if (into != lastInto) {
            lastIntoBuffer = into.asByteBuffer();
            lastInto = into;
        }
        ByteBuffer b = lastIntoBuffer.clear();
        InetSocketAddress source = (InetSocketAddress) channel.receive(b);
        receivedLength = b.position();
        return source;
    }

    @Override
    int receivedLength() {
        return receivedLength;
    }

    @Override
    int localPort() throws IOException {
        return ((InetSocketAddress) channel.getLocalAddress()).getPort();
    }

    @Override
    int receiveBufferSize() throws IOException {
        return channel.getOption(StandardSocketOptions.SO_RCVBUF);
    }

    @Override
    int sendBufferSize() throws IOException {
        return channel.getOption(StandardSocketOptions.SO_SNDBUF);
    }

    @Override
    void close() throws IOException {
        channel.close();
    }

    @Override
    java.nio.channels.SelectableChannel selectable() {
        return channel;
    }
}
