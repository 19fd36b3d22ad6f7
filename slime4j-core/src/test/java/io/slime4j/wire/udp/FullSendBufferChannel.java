package io.slime4j.wire.udp;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;

/**
 * A datagram channel whose send buffer is always full: {@code send} returns 0 without taking any
 * byte, as a non-blocking {@link DatagramChannel} does when the kernel refuses (EAGAIN). The Linux
 * loopback path practically never refuses (a datagram leaves the send buffer as it is sent), so the
 * refusal path of {@link UdpPort#send} is tested through this stand-in.
 */
final class FullSendBufferChannel extends DatagramChannel {
    int sendAttempts;

    FullSendBufferChannel() {
        super(SelectorProvider.provider());
    }

    @Override
    public int send(ByteBuffer src, SocketAddress target) {
        sendAttempts++;
        return 0;
    }

    @Override
    public SocketAddress receive(ByteBuffer dst) {
        return null;
    }

    @Override
    public DatagramChannel bind(SocketAddress local) {
        return this;
    }

    @Override
    public <T> DatagramChannel setOption(SocketOption<T> name, T value) {
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return Set.of();
    }

    @Override
    public DatagramSocket socket() {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean isConnected() {
        return false;
    }

    @Override
    public DatagramChannel connect(SocketAddress remote) {
        throw new UnsupportedOperationException();
    }

    @Override
    public DatagramChannel disconnect() {
        return this;
    }

    @Override
    public SocketAddress getRemoteAddress() {
        return null;
    }

    @Override
    public int read(ByteBuffer dst) {
        return 0;
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) {
        return 0;
    }

    @Override
    public int write(ByteBuffer src) {
        return 0;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) {
        return 0;
    }

    @Override
    public SocketAddress getLocalAddress() {
        return null;
    }

    @Override
    public MembershipKey join(InetAddress group, NetworkInterface interf) {
        throw new UnsupportedOperationException();
    }

    @Override
    public MembershipKey join(InetAddress group, NetworkInterface interf, InetAddress source) {
        throw new UnsupportedOperationException();
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
    }

    @Override
    protected void implConfigureBlocking(boolean block) {
    }
}
