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
     * Hands up to {@code limit} received datagrams to {@code handler}, priority channel first.
     * The segment passed to the handler is valid only during the call.
     *
     * @return the number of datagrams handed over
     */
    int receive(PacketHandler handler, int limit);

    /**
     * Registers a callback the wire may run (from any thread) when datagrams become available, so
     * that an idle progress agent can wake up at once. Wires that cannot tell may never call it.
     */
    void onReceivable(Runnable wakeup);

    @Override
    void close();
}
