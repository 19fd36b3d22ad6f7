package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import io.slime4j.wire.WirePort;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The send path of a {@link SoftDevice}: one transmit buffer, read as a request, an ACK or a
 * response through typed frames over the same bytes, and the port's send, counted per queue
 * pair. A packet is built in the buffer and sent at once, so one buffer serves the whole device.
 * Agent thread only.
 */
final class PacketOutput {
    private final WirePort port;
    private final HeaderFlyweight header = new HeaderFlyweight();
    private final DataFrame data = new DataFrame();
    private final AckFrame ack = new AckFrame();
    private final ResponseFrame response = new ResponseFrame();
    private final boolean gathers;

    PacketOutput(WirePort port) {
        this.port = port;
        MemorySegment buffer = Arena.ofAuto().allocate(port.maxPacketSize(), 64);
        header.wrap(buffer);
        data.wrap(buffer);
        ack.wrap(buffer);
        response.wrap(buffer);
        this.gathers = port.gathers();
    }

    /** The transmit buffer's common header fields. */
    HeaderFlyweight header() {
        return header;
    }

    /** The transmit buffer read as a request. */
    DataFrame data() {
        return data;
    }

    /** The transmit buffer read as an ACK or NAK. */
    AckFrame ack() {
        return ack;
    }

    /** The transmit buffer read as a read or atomic response. */
    ResponseFrame response() {
        return response;
    }

    /** Whether the port sends a header and a payload from registered memory without copying. */
    boolean gathers() {
        return gathers;
    }

    /** Sends the packet built in the transmit buffer to {@code qp}'s peer. */
    void send(SoftQueuePair qp, int length, boolean priority) {
        count(qp, port.send(qp.peerAddress(), header.segment(), length, priority), length);
    }

    /**
     * Sends the header built in the transmit buffer ({@code headerLength} bytes) followed by
     * {@code payloadLength} bytes of {@code payload} from {@code payloadOffset}, gathered by the
     * port, to {@code qp}'s peer.
     */
    void send(SoftQueuePair qp, int headerLength, MemorySegment payload, long payloadOffset, int payloadLength,
              boolean priority) {
        count(qp, port.send(qp.peerAddress(), header.segment(), headerLength, payload, payloadOffset, payloadLength,
                priority), headerLength + payloadLength);
    }

    private static void count(SoftQueuePair qp, boolean sent, int length) {
        CounterSet c = qp.countersSet();
        if (sent) {
            c.increment(Counter.PACKETS_SENT);
            c.add(Counter.BYTES_SENT, length);
        } else {
            c.increment(SoftCounter.SEND_DROPS);
        }
    }
}
