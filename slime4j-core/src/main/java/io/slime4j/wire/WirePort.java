package io.slime4j.wire;

import java.lang.foreign.MemorySegment;

/**
 * One bound endpoint of a wire: sends datagrams and polls for received ones. Datagrams are at most
 * {@link #maxPacketSize()} bytes. Two logical channels share a port: the priority channel (ACKs and
 * tiny messages, usnic's "command channel") is always drained before the data channel.
 */
public interface WirePort extends AutoCloseable {

    /** The address peers send to (may differ from the bound address, e.g. behind NAT or a relay). */
    WireAddress localAddress();

    /**
     * Parses an address text of this wire, e.g. one a peer advertised.
     *
     * @throws IllegalArgumentException if the text is not an address of this wire
     */
    WireAddress resolve(String address);

    /** Largest datagram this port sends or receives. */
    int maxPacketSize();

    /**
     * Largest datagram that reaches this port's peers without IP fragmentation (for UDP: what the
     * path MTU leaves for the UDP payload); the engine's default payload per packet is chosen so
     * that its packets fit. At most {@link #maxPacketSize()}, which this default returns (wires
     * without a path limit, e.g. in-process queues).
     */
    default int pathPacketSize() {
        return maxPacketSize();
    }

    /**
     * Ends a burst of sends: a wire that holds datagrams back to send several in one system call
     * (UDP GSO) sends what it holds now. The engine calls it at the end of each duty cycle's
     * sending, from the sending thread; until then a held datagram's parts (header copied, payload
     * read at flush) must stay as they were. Wires that send at once need not override it.
     */
    default void flush() {
    }

    /**
     * Bytes of datagrams this port can hold before the wire starts dropping them (for UDP, the
     * socket receive buffer the kernel granted). The engine keeps the data its peers have in flight
     * towards this port below it. Wires without such a limit return {@link Integer#MAX_VALUE}.
     */
    default int receiveBufferSize() {
        return Integer.MAX_VALUE;
    }

    /**
     * Sends {@code length} bytes from {@code packet} (copied before return) to {@code to}.
     *
     * @return false if the datagram could not be queued (buffers full, port closed); the caller
     *         counts it and relies on retransmission
     */
    boolean send(WireAddress to, MemorySegment packet, int length, boolean priority);

    /**
     * Whether {@link #send(WireAddress, MemorySegment, int, MemorySegment, long, int, boolean)}
     * sends without copying the payload first; callers that have a packet built anyway may prefer
     * the plain send otherwise.
     */
    default boolean gathers() {
        return false;
    }

    /**
     * Sends one datagram made of {@code headerLength} bytes of {@code header} followed by
     * {@code payloadLength} bytes of {@code payload} starting at {@code payloadOffset} (the header
     * read before return; the payload before return or, on a port that holds datagrams back for a
     * burst, before the next {@link #flush()}). A wire that can gather the two parts in one system
     * call does so, which saves the engine copying a payload out of registered memory into a
     * packet; this default copies the payload behind the header, which then needs room for both.
     *
     * @return as {@link #send(WireAddress, MemorySegment, int, boolean)}
     * @throws IllegalArgumentException if a part lies outside its segment or the datagram is larger
     *                                  than {@link #maxPacketSize()}
     */
    default boolean send(WireAddress to, MemorySegment header, int headerLength, MemorySegment payload,
                         long payloadOffset, int payloadLength, boolean priority) {
        if (headerLength < 0 || payloadLength < 0 || payloadOffset < 0
                || payloadOffset > payload.byteSize() - payloadLength
                || (long) headerLength + payloadLength > header.byteSize()) {
            throw new IllegalArgumentException("header " + headerLength + " + payload " + payloadOffset + "+"
                    + payloadLength + " of " + payload.byteSize() + " bytes do not fit the header segment of "
                    + header.byteSize() + " bytes");
        }
        MemorySegment.copy(payload, payloadOffset, header, headerLength, payloadLength);
        return send(to, header, headerLength + payloadLength, priority);
    }

    /**
     * Hands up to {@code limit} received datagrams to {@code handler}, priority channel first.
     * The segment passed to the handler is valid only during the call. The call ends early once the
     * handler says it has {@linkplain PacketHandler#receiveMore enough}; a port that must look at
     * its priority channel again after a datagram of its data channel, so that a priority datagram
     * sent before it is not taken after it, still drains that channel once more.
     *
     * @return the number of datagrams handed over
     */
    int receive(PacketHandler handler, int limit);

    /**
     * Registers a callback the wire may run (from any thread) when datagrams become available, so
     * that an idle progress agent can wake up at once. Wires that cannot tell may never call it.
     */
    void onReceivable(Runnable wakeup);

    /**
     * Native file descriptors that turn readable when a datagram arrives, for an idle progress
     * agent to block on (epoll) instead of parking for a fixed time. Empty when the port has none
     * (the in-process wire wakes the agent through {@link #onReceivable} instead). The caller only
     * waits on them; it never reads, closes or changes them.
     *
     * <p>No default: how an idle agent learns of a datagram is every port's own decision. A port
     * that offers neither descriptors nor channels must call {@link #onReceivable}'s wakeup, or
     * its agent sleeps out its whole idle bound (about a second) while datagrams wait; a decorator
     * passes on the port's own.
     */
    int[] readableFds();

    /**
     * NIO channels that turn readable when a datagram arrives, for an idle progress agent to block
     * on with a {@link java.nio.channels.Selector} (it registers them, non-blocking already, and
     * only waits). Empty when the port has none. No default, as for {@link #readableFds()}.
     */
    java.nio.channels.SelectableChannel[] readableChannels();

    @Override
    void close();
}
