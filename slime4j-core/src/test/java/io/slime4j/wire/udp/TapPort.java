package io.slime4j.wire.udp;

import io.slime4j.wire.PacketHandler;
import io.slime4j.wire.WireAddress;
import io.slime4j.wire.WirePort;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A test decorator of a real port, placed between a device and its {@link UdpPort}: it copies the
 * first datagram of each engine packet type the device sends (a real packet from the wire, the base
 * for mutations), and it can inject datagrams that then leave from the device's own sockets, so
 * that they pass the receiver's source check. Injection happens on the device's agent thread, in
 * {@code send}, right after a real datagram went to the peer, because a port has one sending thread.
 * Everything else is the port's own: how the agent waits for datagrams ({@link #readableFds()}) and
 * whether payloads are gathered from registered memory ({@link #gathers()}), so that the device
 * behaves as it would without the tap (before they were passed on, the agents parked for a second
 * at a time while datagrams waited, and every payload was copied into a packet first). Except
 * while injections are queued: each one on the data channel first sends the GSO burst the port
 * holds, so held datagrams leave alone then, and one on the priority channel may leave before the
 * held datagram it follows.
 */
final class TapPort implements WirePort {
    /** Offset of the packet type byte in the engine header (docs/WIRE.md). */
    static final int TYPE_OFFSET = 1;

    private final UdpPort port;
    private final AtomicReferenceArray<byte[]> firstOfType = new AtomicReferenceArray<>(256);
    private final Queue<Injection> injections = new ConcurrentLinkedQueue<>();
    private final AtomicLong injected = new AtomicLong();
    private final AtomicLong failedInjections = new AtomicLong();

    /** A datagram to send from the device's sockets to its peer. */
    record Injection(byte[] bytes, boolean priority) {}

    TapPort(UdpPort port) {
        this.port = port;
    }

    /** The underlying port. */
    UdpPort port() {
        return port;
    }

    /** A copy of the first datagram of engine packet type {@code type} this device sent, or null. */
    byte[] captured(int type) {
        byte[] b = firstOfType.get(type);
        return b == null ? null : b.clone();
    }

    /** Queues a datagram to go to the peer from this device's sockets. */
    void inject(byte[] bytes, boolean priority) {
        injections.add(new Injection(bytes, priority));
    }

    /** Injections still queued. */
    int pendingInjections() {
        return injections.size();
    }

    /** Injected datagrams sent so far. */
    long injectedCount() {
        return injected.get();
    }

    /** Injected datagrams the port refused to send (buffer full, an error, closed). */
    long failedInjections() {
        return failedInjections.get();
    }

    @Override
    public UdpAddress localAddress() {
        return port.localAddress();
    }

    @Override
    public WireAddress resolve(String address) {
        return port.resolve(address);
    }

    @Override
    public int maxPacketSize() {
        return port.maxPacketSize();
    }

    @Override
    public int receiveBufferSize() {
        return port.receiveBufferSize();
    }

    @Override
    public int pathPacketSize() {
        return port.pathPacketSize();
    }

    @Override
    public void flush() {
        port.flush();
    }

    @Override
    public boolean send(WireAddress to, MemorySegment packet, int length, boolean priority) {
        boolean sent = port.send(to, packet, length, priority); // checks the arguments first
        capture(packet, length, null, 0, 0);
        inject(to);
        return sent;
    }

    /** As the port: the engine gathers payloads from registered memory through the tap as it would without it. */
    @Override
    public boolean gathers() {
        return port.gathers();
    }

    @Override
    public boolean send(WireAddress to, MemorySegment header, int headerLength, MemorySegment payload,
                        long payloadOffset, int payloadLength, boolean priority) {
        boolean sent = port.send(to, header, headerLength, payload, payloadOffset, payloadLength, priority);
        capture(header, headerLength, payload, payloadOffset, payloadLength); // both parts unchanged until a flush
        inject(to);
        return sent;
    }

    /** Keeps a copy of the datagram (header, then payload if any) if it is the first of its type. */
    private void capture(MemorySegment header, int headerLength, MemorySegment payload, long payloadOffset,
                         int payloadLength) {
        if (headerLength <= TYPE_OFFSET) {
            return;
        }
        int type = header.get(ValueLayout.JAVA_BYTE, TYPE_OFFSET) & 0xFF;
        if (firstOfType.get(type) == null) {
            byte[] copy = new byte[headerLength + payloadLength];
            MemorySegment.copy(header, ValueLayout.JAVA_BYTE, 0, copy, 0, headerLength);
            if (payloadLength > 0) {
                MemorySegment.copy(payload, ValueLayout.JAVA_BYTE, payloadOffset, copy, headerLength, payloadLength);
            }
            firstOfType.compareAndSet(type, null, copy);
        }
    }

    /** Sends up to four queued injections to {@code to}, right behind a real datagram. */
    private void inject(WireAddress to) {
        for (int i = 0; i < 4; i++) {
            Injection injection = injections.poll();
            if (injection == null) {
                break;
            }
            if (port.send(to, MemorySegment.ofArray(injection.bytes()), injection.bytes().length, injection.priority())) {
                injected.incrementAndGet();
            } else {
                failedInjections.incrementAndGet();
            }
        }
    }

    @Override
    public int receive(PacketHandler handler, int limit) {
        return port.receive(handler, limit);
    }

    @Override
    public void onReceivable(Runnable wakeup) {
        port.onReceivable(wakeup);
    }

    /** The port's own descriptors: the agent blocks on them when idle, as it would without the tap. */
    @Override
    public int[] readableFds() {
        return port.readableFds();
    }

    /** The port's own channels (NIO backend), as {@link #readableFds()}. */
    @Override
    public java.nio.channels.SelectableChannel[] readableChannels() {
        return port.readableChannels();
    }

    @Override
    public void close() {
        port.close();
    }
}
