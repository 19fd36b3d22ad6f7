package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.QpState;
import io.slime4j.wire.PlacingPacketHandler;
import io.slime4j.wire.WireAddress;

import java.lang.foreign.MemorySegment;
import java.util.function.BooleanSupplier;

/**
 * The receive path of a {@link SoftDevice}: checks each datagram's form, routes it to its queue
 * pair by number, token and source, counts it, and hands it to the queue pair's completer (ACKs)
 * or responder (everything else). As a {@link PlacingPacketHandler} it also tells a wire that can
 * split datagrams where an in-order RDMA write's payload goes, so that it lands at its target
 * straight from the socket: a datagram is placed only if it passes the same form and routing
 * checks as a whole one ({@link #route}) and the responder's write check; anything else is
 * declined and then arrives whole, to be handled (and counted) as usual. A bundle of coalesced
 * packets (never placed: it is not a WRITE) is split by the {@link BundleSplitter} and each of
 * its frames takes the same path as a datagram of its own. Agent thread only.
 */
final class PacketDispatcher implements PlacingPacketHandler {
    private final SoftQueuePair[] byQpn;
    private final BooleanSupplier enough;
    private final CounterSet counters;
    private final HeaderFlyweight rxHeader = new HeaderFlyweight();
    private final DataFrame rxData = new DataFrame();
    private final AckFrame rxAck = new AckFrame();
    private long now;

    private final BundleSplitter splitter;
    private final BundleSplitter.FrameHandler frameHandler = (frame, length, from) -> dispatch(frame, length, from, false);

    /**
     * A dispatcher whose receive calls end once {@code enough} says so ({@link #receiveMore}): the
     * device's cycle is a waiter's, and what it waits for has come ({@link SoftDevice}'s
     * {@code receiveMayEnd}).
     */
    PacketDispatcher(SoftQueuePair[] byQpn, CounterSet deviceCounters, int maxPacketSize, BooleanSupplier enough) {
        this.byQpn = byQpn;
        this.counters = deviceCounters;
        this.splitter = new BundleSplitter(maxPacketSize, deviceCounters);
        this.enough = enough;
    }

    /** Whether the receive under way goes on: not once a waiter that runs the cycle has what it waits for (a receive completion). */
    @Override
    public boolean receiveMore() {
        return !enough.getAsBoolean();
    }

    /** The duty cycle's time, given to the queue pairs with each packet. */
    void now(long nowNanos) {
        now = nowNanos;
    }

    /** Where a datagram's header sends it: the one routing check for whole and placed datagrams. */
    private enum Route {
        /** To {@link #routedQp}, which is active and connected to the sender. */
        OK,
        /** No such queue pair, or not connected. */
        UNKNOWN_DESTINATION,
        /** The connection token is not the queue pair's. */
        BAD_TOKEN,
        /** Not from the queue pair's peer. */
        UNKNOWN_SOURCE,
        /** The queue pair is not (or no longer) processing packets. */
        INACTIVE
    }

    /** The queue pair {@link #route} found; agent thread only. */
    private SoftQueuePair routedQp;

    /** Routes a well-formed header from {@code from} to its queue pair ({@link #routedQp}). */
    private Route route(HeaderFlyweight h, WireAddress from) {
        int qpn = h.destQpn();
        SoftQueuePair qp = qpn > 0 && qpn <= SoftDevice.MAX_QPS ? byQpn[qpn] : null;
        routedQp = qp;
        if (qp == null || qp.peerAddress() == null) {
            return Route.UNKNOWN_DESTINATION;
        }
        if (h.token() != qp.localToken()) {
            return Route.BAD_TOKEN;
        }
        if (!from.equals(qp.peerAddress())) {
            return Route.UNKNOWN_SOURCE;
        }
        return qp.isActive() ? Route.OK : Route.INACTIVE;
    }

    /**
     * A received datagram: checked for form, routed, counted, and handed to its queue pair's
     * completer (ACKs) or responder (everything else). {@code placed}: the wire received its
     * payload at the target the responder named ({@link Responder#placement}).
     */
    private void dispatch(MemorySegment packet, int length, WireAddress from, boolean placed) {
        HeaderFlyweight h = rxHeader.wrap(packet);
        if (!h.isWellFormed(length)) {
            counters.increment(SoftCounter.BAD_PACKETS);
            return;
        }
        Route route = route(h, from);
        SoftQueuePair qp = routedQp;
        switch (route) {
            case OK -> {
            }
            case UNKNOWN_DESTINATION -> {
                counters.increment(SoftCounter.UNKNOWN_DESTINATION);
                return;
            }
            case BAD_TOKEN -> {
                qp.countersSet().increment(SoftCounter.BAD_TOKEN);
                return;
            }
            case UNKNOWN_SOURCE -> {
                qp.countersSet().increment(SoftCounter.UNKNOWN_SOURCE);
                return;
            }
            case INACTIVE -> {
                qp.countersSet().increment(SoftCounter.UNKNOWN_DESTINATION);
                if (qp.state() == QpState.ERR) {
                    qp.responder().onPacketInError(h);
                }
                return;
            }
        }
        if (h.type() == TYPE_ACK) {
            count(qp, 1, length);
            qp.completer().onAckPacket(rxAck.wrap(packet), now);
            return;
        }
        received(qp, h, 1, length);
        qp.responder().onPacket(rxData.wrap(packet), packet, length, now, placed);
    }

    /** {@code packets} data packets of {@code bytes} in all arrived for {@code qp}: counted, and the first header's piggy-backed ACK taken. */
    private void received(SoftQueuePair qp, HeaderFlyweight first, int packets, int bytes) {
        count(qp, packets, bytes);
        if ((first.flags() & F_ACK) != 0) {
            qp.completer().onCumulativeAck(first.ackPsn(), now);
        }
    }

    private static void count(SoftQueuePair qp, int packets, int bytes) {
        CounterSet c = qp.countersSet();
        c.add(Counter.PACKETS_RECEIVED, packets);
        c.add(Counter.BYTES_RECEIVED, bytes);
    }

    private final DataFrame peeked = new DataFrame();
    /** The header of a datagram of a coalesced receive, read where it lies ({@link #onPlacedRun}). */
    private final DataFrame runFrame = new DataFrame();
    /** What the responder placed (or predicted) last, and for which queue pair. */
    private WritePlacement placement;
    private SoftQueuePair placedQp;

    @Override
    public void onPacket(MemorySegment packet, int length, WireAddress from) {
        if (BundleSplitter.isBundle(packet, length)) {
            splitter.split(packet, length, from, frameHandler); // each frame as the packet it is
            return;
        }
        dispatch(packet, length, from, false);
    }

    @Override
    public int headerLength() {
        return HEADER_LENGTH;
    }

    @Override
    public boolean place(MemorySegment header, int length, WireAddress from) {
        DataFrame d = peeked.wrap(header);
        if (length <= HEADER_LENGTH || d.type() != TYPE_WRITE || !d.isWellFormed(length)
                || route(d, from) != Route.OK) {
            return false;
        }
        WritePlacement p = routedQp.responder().placement(d, length - HEADER_LENGTH);
        if (p == null) {
            return false;
        }
        placement = p;
        placedQp = routedQp;
        return true;
    }

    /**
     * A datagram {@link #place} declined, or a coalesced run of them, may be dropped unread when it
     * repeats WRITE packets its queue pair has executed or holds already (a run duplicated by the
     * network). Only a run of equal-sized datagrams qualifies, whose first packet was not resent
     * ({@link HeaderFlyweight#F_RESENT}: the packets of one send of new data have consecutive PSNs,
     * resent ones need not) and whose PSNs, counted on from the first header's, are all duplicates.
     * Should the run hold packets of another stream after all (the receiver's GRO merging sends),
     * what is dropped is recovered as any loss is. The first header's piggy-backed ACK is taken and
     * the packets are counted as received, as {@link #dispatch} would.
     */
    @Override
    public boolean discard(MemorySegment header, int length, int segment, WireAddress from) {
        DataFrame d = peeked.wrap(header);
        int count = discardable(d, length, segment);
        if (count == 0 || route(d, from) != Route.OK || !routedQp.responder().discardDuplicates(d.psn(), count, now)) {
            return false;
        }
        received(routedQp, d, count, length);
        return true;
    }

    /**
     * How many packets a receive of {@code length} bytes ({@code segment}-byte datagrams, or one if
     * 0) whose first header is {@code d} may be judged duplicates by, counting PSNs on from the
     * first: all its datagrams equal-sized WRITE packets, and the first not resent when there are
     * several; 0 when it does not qualify (see {@link #discard}).
     */
    static int discardable(DataFrame d, int length, int segment) {
        int size = segment > 0 ? segment : length;
        if (size <= HEADER_LENGTH || length % size != 0) {
            return 0;
        }
        int count = length / size;
        if (d.type() != TYPE_WRITE || !d.isWellFormed(size) || (count > 1 && (d.flags() & F_RESENT) != 0)) {
            return 0;
        }
        return count;
    }

    /** The rest of the write in progress: its next packet goes right after this one. */
    @Override
    public boolean predictNext() {
        SoftQueuePair qp = placedQp;
        WritePlacement p = qp == null || !qp.isActive() ? null : qp.responder().predictNext();
        if (p == null) {
            return false;
        }
        placement = p;
        return true;
    }

    @Override
    public long placementRoom() {
        SoftQueuePair qp = placedQp;
        return qp == null || placement == null ? 0 : qp.responder().placementRoom();
    }

    @Override
    public int predictedPayloadLength() {
        return placement == null ? 0 : placement.length();
    }

    /** Whether the packet is one {@link #place} accepts for exactly the predicted place. */
    @Override
    public boolean confirm(MemorySegment header, int length, WireAddress from) {
        MemorySegment predictedSegment = placement.segment();
        long predictedOffset = placement.offset();
        return place(header, length, from) && placement.segment() == predictedSegment
                && placement.offset() == predictedOffset;
    }

    @Override
    public MemorySegment placementSegment() {
        return placement.segment();
    }

    @Override
    public long placementOffset() {
        return placement.offset();
    }

    @Override
    public void onPlacedPacket(MemorySegment packet, int length, WireAddress from) {
        dispatch(packet, length, from, true);
    }

    /**
     * The rest of an RDMA write whose packet was placed last, from a coalesced receive: each
     * datagram routed as {@link #route} would route it (same queue pair and token; the whole
     * receive came from one source, checked once) and executed by the responder if it continues
     * the write ({@link Responder#onPlacedContinuation}); counted together. The ACKs they carry are
     * cumulative: the newest stands for all (one round-trip sample and one count of
     * {@link SoftCounter#ACKS_RECEIVED} for the run, where one per datagram that moved it on was
     * taken before).
     */
    @Override
    public int onPlacedRun(MemorySegment buffer, int segment, int first, int count, int last, WireAddress from) {
        SoftQueuePair qp = placedQp;
        if (qp == null || !qp.isActive() || !from.equals(qp.peerAddress())) {
            return 0;
        }
        int qpn = qp.qpn();
        long token = qp.localToken();
        Responder responder = qp.responder();
        int taken = 0;
        long bytes = 0;
        boolean acked = false;
        int ackPsn = 0;
        for (int i = first; i < count; i++) {
            int length = i < count - 1 ? segment : last;
            DataFrame d = runFrame.wrapAt(buffer, (long) i * segment);
            if (d.destQpn() != qpn || d.token() != token || !responder.onPlacedContinuation(d, length, now)) {
                break;
            }
            if ((d.flags() & F_ACK) != 0 && (!acked || before(ackPsn, d.ackPsn()))) {
                acked = true;
                ackPsn = d.ackPsn();
            }
            taken++;
            bytes += length;
        }
        if (taken > 0) {
            CounterSet c = qp.countersSet();
            c.add(Counter.PACKETS_RECEIVED, taken);
            c.add(Counter.BYTES_RECEIVED, bytes);
            if (acked) {
                qp.completer().onCumulativeAck(ackPsn, now);
            }
        }
        return taken;
    }
}
