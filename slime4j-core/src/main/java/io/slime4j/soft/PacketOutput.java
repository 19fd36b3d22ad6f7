package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import io.slime4j.wire.WirePort;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The send path of a {@link SoftDevice}: one transmit buffer, read as a request, an ACK or a
 * response through typed frames over the same bytes, and the port's send, counted per queue
 * pair. A packet is built in the buffer and then either sent at once or, when it is small
 * enough, copied into the {@link Coalescer} to leave with the other small packets for the same
 * peer at the end of the agent's turn ({@link #flush()}); so one buffer serves the whole device.
 * A packet that is not coalesced first lets out what is held for its peer and channel, so that
 * each channel to a peer keeps the order the engine sent in. Used by the holder of the device's
 * duty cycle (its agent, or a waiting or posting thread), one at a time; what it counts is added
 * to the counters at the end of each cycle.
 */
final class PacketOutput implements Coalescer.Sink {
    private final WirePort port;
    private final CounterSet deviceCounters;
    /** Null when coalescing is off ({@link SoftConfig#coalesceLimit()} 0). */
    private final Coalescer coalescer;
    private final HeaderFlyweight header = new HeaderFlyweight();
    private final DataFrame data = new DataFrame();
    private final AckFrame ack = new AckFrame();
    private final ResponseFrame response = new ResponseFrame();
    private final boolean gathers;
    /**
     * What was sent since the counts were last added to the counters ({@link #flushCounts}): the
     * packets and bytes of one queue pair at a time and the device's datagrams. A cycle sends runs
     * of packets of one queue pair, and adding each one's counts took three atomic updates a packet
     * on the sending agent (about a sixth of its Java samples on the veth).
     */
    private SoftQueuePair countedQp;
    private long countedPackets;
    private long countedBytes;
    private long countedDatagrams;

    PacketOutput(WirePort port, CounterSet deviceCounters, int coalesceLimit) {
        this.port = port;
        this.deviceCounters = deviceCounters;
        int bundle = Math.min(port.pathPacketSize(), port.maxPacketSize());
        this.coalescer = coalesceLimit > 0 ? new Coalescer(this, bundle, coalesceLimit) : null;
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

    /** Sends the packet built in the transmit buffer to {@code qp}'s peer (or queues it to coalesce). */
    void send(SoftQueuePair qp, int length, boolean priority) {
        send(qp, length, priority, true);
    }

    /**
     * Sends the packet built in the transmit buffer to {@code qp}'s peer; queues it to coalesce only
     * if {@code coalesce} (false for a packet of a message of several packets: its tail then stays
     * the last datagram of its GSO run instead of leaving in a system call of its own).
     */
    void send(SoftQueuePair qp, int length, boolean priority, boolean coalesce) {
        if (coalescer != null) {
            if (coalesce && coalescer.accepts(length)) {
                coalescer.append(qp.peerAddress(), priority, qp, header.segment(), length, null, 0, 0);
                return;
            }
            coalescer.flush(qp.peerAddress(), priority);
        }
        count(qp, countDatagram(port.send(qp.peerAddress(), header.segment(), length, priority)), length);
    }

    /**
     * Sends the header built in the transmit buffer ({@code headerLength} bytes) followed by
     * {@code payloadLength} bytes of {@code payload} from {@code payloadOffset}, gathered by the
     * port, to {@code qp}'s peer.
     */
    void send(SoftQueuePair qp, int headerLength, MemorySegment payload, long payloadOffset, int payloadLength,
              boolean priority) {
        send(qp, headerLength, payload, payloadOffset, payloadLength, priority, true);
    }

    /** As {@link #send(SoftQueuePair, int, MemorySegment, long, int, boolean)}; coalesced only if {@code coalesce}. */
    void send(SoftQueuePair qp, int headerLength, MemorySegment payload, long payloadOffset, int payloadLength,
              boolean priority, boolean coalesce) {
        if (coalescer != null) {
            if (coalesce && coalescer.accepts(headerLength + payloadLength)) {
                coalescer.append(qp.peerAddress(), priority, qp, header.segment(), headerLength, payload,
                        payloadOffset, payloadLength);
                return;
            }
            coalescer.flush(qp.peerAddress(), priority);
        }
        count(qp, countDatagram(port.send(qp.peerAddress(), header.segment(), headerLength, payload, payloadOffset,
                payloadLength, priority)), headerLength + payloadLength);
    }

    /**
     * The end of the agent's turn: every coalesced packet leaves now (before the port's own
     * {@link WirePort#flush()}), so none waits for company past the turn it was sent in.
     */
    void flush() {
        if (coalescer != null) {
            coalescer.flushAll();
        }
    }

    @Override
    public boolean sendDatagram(io.slime4j.wire.WireAddress to, MemorySegment datagram, int length,
                                boolean priority) {
        return countDatagram(port.send(to, datagram, length, priority));
    }

    @Override
    public void frameSent(Object tag, int length, boolean sent, boolean bundled) {
        count((SoftQueuePair) tag, sent, length);
        if (sent && bundled) {
            deviceCounters.increment(SoftCounter.COALESCED_PACKETS_SENT);
        }
    }

    private boolean countDatagram(boolean sent) {
        if (sent) {
            countedDatagrams++;
        }
        return sent;
    }

    private void count(SoftQueuePair qp, boolean sent, int length) {
        if (!sent) {
            qp.countersSet().increment(SoftCounter.SEND_DROPS);
            return;
        }
        if (qp != countedQp) {
            flushQpCounts();
            countedQp = qp;
        }
        countedPackets++;
        countedBytes += length;
    }

    /**
     * Adds what was sent since the last call to the counters: at the end of every cycle (its
     * {@code finally}, after {@link #flush} and the port's), so a count is late by at most the
     * cycle that sent the packet.
     */
    void flushCounts() {
        flushQpCounts();
        if (countedDatagrams > 0) {
            deviceCounters.add(SoftCounter.DATAGRAMS_SENT, countedDatagrams);
            countedDatagrams = 0;
        }
    }

    private void flushQpCounts() {
        if (countedPackets > 0) {
            CounterSet c = countedQp.countersSet();
            c.add(Counter.PACKETS_SENT, countedPackets);
            c.add(Counter.BYTES_SENT, countedBytes);
            countedPackets = 0;
            countedBytes = 0;
        }
        countedQp = null;
    }
}
