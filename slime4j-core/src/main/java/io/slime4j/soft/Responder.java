package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import static io.slime4j.soft.HeaderFlyweight.*;


import java.lang.foreign.MemorySegment;

/**
 * The responding role of a queue pair (as rxe_resp.c): receives the peer's reliable stream and
 * executes it exactly once, in PSN order. Each packet goes through a named chain of checks, each
 * a small method returning a {@link Verdict}:
 *
 * <pre>
 *   PSN ({@link InboundStream}) → op sequence → op valid → resources → length → key → execute
 * </pre>
 *
 * An in-order packet runs the whole chain; one ahead of order is placed at once when it can be
 * (RDMA-write data, SEND data into the receive its message will consume, responses to our own
 * requests) and what must still happen in order is held in the {@link ReorderBuffer}. Refusals
 * become RNR or error NAKs; ACKs are timed by the {@link AckScheduler} and sent by the
 * {@link AckSender}. Reads and atomics owe responses, which go into the {@link ResponseQueue} (the
 * requester sends them); responses to our own requests go to the {@link Completer}. The responder
 * calls neither the requester nor anything that calls it back. Progress agent thread only.
 */
final class Responder implements Transmitter.PiggyBack {
    private final CounterSet counters;
    private final InboundStream inbound;
    private final ReorderBuffer held;
    private final AckScheduler acks;
    private final AckSender ackSender;
    private final RemoteAccess access;
    private final MessageReceiver receiver;
    private final Completer completer;
    private final WritePlacement placement = new WritePlacement();
    /** The response packets of the peer's stream, read by their own names. */
    private final ResponseFrame response = new ResponseFrame();
    /** Between the steps of one packet's chain: the receive a SEND lands in, counted from the next. */
    private int receiveIndex;

    Responder(SoftQueuePair qp, SoftDevice device, ResponseQueue responses, Completer completer) {
        SoftConfig config = device.softConfig();
        this.counters = qp.countersSet();
        this.completer = completer;
        this.inbound = new InboundStream(config.sendWindow());
        this.held = new ReorderBuffer(config.sendWindow());
        // until the first ACK the peer assumes a window of its own: count it in the largest packets possible
        this.acks = new AckScheduler(config.ackDelay().toNanos(), config.ackEvery(), qp.config().mtu() + HEADER_LENGTH,
                OutboundStream.INITIAL_PEER_WINDOW_BYTES, device.maxPacketSize(), device.acksWaitForReplies());
        this.ackSender = new AckSender(qp, device, inbound, acks);
        this.access = new RemoteAccess(device.keyTable(), qp.pd(), responses);
        this.receiver = new MessageReceiver(qp, device.keyTable());
    }

    /** Sets the first PSN expected from the peer (at RTR). */
    void start(int psn) {
        inbound.start(psn);
    }

    @Override
    public int expectedPsn() {
        return inbound.expectedPsn();
    }

    @Override
    public void ackCarried() {
        acks.onCarried(inbound.hasHoles());
    }

    /** Receives consumed so far (read by posting threads to see whether the receive queue is full). */
    long receivesConsumed() {
        return receiver.consumed();
    }

    // ---------------------------------------------------------------- packets

    /**
     * One data packet of the peer's stream (already routed and checked for token, source and
     * form); {@code placed} says the wire received its payload at the target already (see
     * {@link #placement}).
     */
    void onPacket(DataFrame d, MemorySegment packet, int length, long now, boolean placed) {
        acks.onPacketSize(length);
        int payload = length - HEADER_LENGTH;
        switch (inbound.classify(d.psn())) {
            case IN_ORDER -> onInOrder(d, packet, payload, now, placed);
            case AHEAD -> onAhead(d, packet, payload, now);
            case DUPLICATE -> onDuplicates(1, now);
            case OUT_OF_WINDOW -> counters.increment(SoftCounter.OUT_OF_WINDOW);
        }
    }

    private void onInOrder(DataFrame d, MemorySegment packet, int payload, long now, boolean placed) {
        int psn = d.psn();
        forget(psn); // executing the packet itself now (placing its data again is harmless)
        Verdict v = check(d, payload, true);
        if (v == Verdict.OK) {
            v = execute(d, packet, payload, now, placed);
        }
        if (v == Verdict.DROP) {
            return;
        }
        if (v != Verdict.OK) {
            ackSender.nak(psn, v);
            return;
        }
        inbound.advance();
        drain();
        acks.onAccepted(now);
        if ((d.flags() & F_ACK_REQ) != 0) {
            acks.onAckRequested(now);
        }
    }

    private void onAhead(DataFrame d, MemorySegment packet, int payload, long now) {
        counters.increment(SoftCounter.OUT_OF_ORDER);
        if (!hold(d, packet, payload, now)) {
            acks.onDroppedAhead();
            return;
        }
        if (inbound.markAhead(d.psn())) {
            acks.onNewHole();
        }
        acks.onAccepted(now);
        if ((d.flags() & F_ACK_REQ) != 0) {
            acks.onAckRequested(now);
        }
    }

    // ---------------------------------------------------------------- the chain of checks

    /** Op sequence → op valid → resources → length → key. Out of order, refusals only drop. */
    private Verdict check(DataFrame d, int payload, boolean inOrder) {
        int type = d.type();
        Verdict v = checkOpSequence(d, type, inOrder);
        if (v == Verdict.OK) {
            v = checkOpValid(d, type, payload);
        }
        if (v == Verdict.OK) {
            v = checkResources(type, inOrder);
        }
        if (v == Verdict.OK) {
            v = checkLength(d, type, inOrder);
        }
        if (v == Verdict.OK) {
            v = checkKey(d, type, payload);
        }
        return v;
    }

    /** A SEND must belong to the message the next receive is for (in order) or a later one. */
    private Verdict checkOpSequence(DataFrame d, int type, boolean inOrder) {
        if (OpTable.has(type, OpTable.TO_RECEIVE)) {
            receiveIndex = receiver.receiveIndex(d.msn());
            if (receiveIndex < 0 || (inOrder && receiveIndex != 0)) {
                return badPacket();
            }
        }
        return Verdict.OK;
    }

    /** A known kind of packet whose lengths and offsets make sense. */
    private Verdict checkOpValid(DataFrame d, int type, int payload) {
        if (!OpTable.has(type, OpTable.REQUEST) && !OpTable.has(type, OpTable.RESPONSE)) {
            return Verdict.DROP;
        }
        if (OpTable.has(type, OpTable.REQUEST | OpTable.SEGMENTED) && !RemoteAccess.isWellFormedPart(d, payload)) {
            return badPacket();
        }
        if (type == TYPE_READ_REQ && d.messageLength() < 0) {
            return Verdict.NAK_INVALID_REQUEST;
        }
        return Verdict.OK;
    }

    /**
     * A SEND needs its receive posted (else RNR in order). A WRITE_WITH_IMM's receive is taken
     * when it executes, and a read's or atomic's room for its response too.
     */
    private Verdict checkResources(int type, boolean inOrder) {
        if (OpTable.has(type, OpTable.TO_RECEIVE) && !receiver.isPosted(receiveIndex)) {
            return inOrder ? Verdict.RNR : Verdict.DROP;
        }
        return Verdict.OK;
    }

    /** A SEND's message must fit its receive. */
    private Verdict checkLength(DataFrame d, int type, boolean inOrder) {
        if (OpTable.has(type, OpTable.TO_RECEIVE)) {
            return receiver.checkCapacity(receiveIndex, d.messageLength(), inOrder);
        }
        return Verdict.OK;
    }

    /** Key, protection domain, access right and bounds of the memory a request addresses. */
    private Verdict checkKey(DataFrame d, int type, int payload) {
        return switch (type) {
            case TYPE_WRITE -> switch (access.checkWrite(d, payload)) {
                case OK, EMPTY -> Verdict.OK;
                case MALFORMED -> badPacket();
                case NO_ACCESS -> Verdict.NAK_REMOTE_ACCESS;
            };
            case TYPE_READ_REQ -> access.checkRead(d.remoteKey(), d.remoteAddress(), d.messageLength());
            case TYPE_ATOMIC_REQ -> access.checkAtomic(d.remoteKey(), d.remoteAddress());
            default -> Verdict.OK;
        };
    }

    /** Executes an in-order packet that passed every check. */
    private Verdict execute(DataFrame d, MemorySegment packet, int payload, long now, boolean placed) {
        int flags = d.flags();
        return switch (d.type()) {
            case TYPE_SEND -> {
                Verdict v = receiver.place(receiveIndex, packet, payload, d.messageOffset(), true);
                if (v == Verdict.OK && (flags & F_LAST) != 0) {
                    receiver.completeSend(d.messageLength(), (flags & F_IMM) != 0, d.immediate());
                }
                yield v;
            }
            case TYPE_WRITE -> {
                Verdict v = d.messageLength() == 0 ? Verdict.OK : access.placeWrite(d, packet, payload, placed);
                if (v == Verdict.OK && (flags & (F_LAST | F_IMM)) == (F_LAST | F_IMM)) {
                    v = receiver.consumeForImmediate(d.immediate(), d.messageLength());
                }
                yield v;
            }
            case TYPE_READ_REQ -> access.executeRead(d.ssn(), d.remoteKey(), d.remoteAddress(), d.messageLength());
            case TYPE_ATOMIC_REQ -> access.executeAtomic(d.ssn(), d.compareAdd(), d.swap(), (flags & F_CMP_SWAP) != 0);
            case TYPE_READ_RESP -> {
                completer.onReadResponse(response.wrap(packet), packet, payload, now);
                yield Verdict.OK;
            }
            case TYPE_ATOMIC_RESP -> {
                completer.onAtomicResponse(response.wrap(packet));
                yield Verdict.OK;
            }
            default -> Verdict.DROP;
        };
    }

    private Verdict badPacket() {
        counters.increment(SoftCounter.BAD_PACKETS);
        return Verdict.DROP;
    }

    // ---------------------------------------------------------------- ahead of order

    /** Places what a packet ahead of order can place now and holds the rest; false drops it (to be resent). */
    private boolean hold(DataFrame d, MemorySegment packet, int payload, long now) {
        int psn = d.psn();
        int type = d.type();
        int flags = d.flags();
        switch (type) {
            case TYPE_WRITE -> {
                if ((flags & F_ORDERED) != 0) {
                    return false; // a read or atomic before it must execute first
                }
                Verdict v = switch (access.checkWrite(d, payload)) {
                    case OK -> access.placeWrite(d, packet, payload, false);
                    case EMPTY -> Verdict.OK;
                    case MALFORMED -> badPacket();
                    case NO_ACCESS -> Verdict.NAK_REMOTE_ACCESS;
                };
                if (v == Verdict.DROP) {
                    return false;
                }
                if (v != Verdict.OK) {
                    held.refusal(psn, type, flags, v); // reported when its turn comes
                } else if ((flags & (F_LAST | F_IMM)) == (F_LAST | F_IMM)) {
                    held.completion(psn, type, flags, d.messageLength(), d.immediate());
                } else {
                    held.placed(psn, type, flags);
                }
                return true;
            }
            case TYPE_READ_REQ, TYPE_ATOMIC_REQ -> {
                held.request(d);
                return true;
            }
            case TYPE_READ_RESP -> {
                completer.onReadResponse(response.wrap(packet), packet, payload, now);
                held.placed(psn, type, flags);
                return true;
            }
            case TYPE_ATOMIC_RESP -> {
                completer.onAtomicResponse(response.wrap(packet));
                held.placed(psn, type, flags);
                return true;
            }
            case TYPE_SEND -> {
                if (check(d, payload, false) != Verdict.OK
                        || receiver.place(receiveIndex, packet, payload, d.messageOffset(), false) != Verdict.OK) {
                    return false;
                }
                if ((flags & F_LAST) != 0) {
                    held.completion(psn, type, flags, d.messageLength(), d.immediate());
                } else {
                    held.placed(psn, type, flags);
                }
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /** Executes held packets that are now in order. */
    private void drain() {
        while (inbound.nextIsHeld()) {
            int psn = inbound.expectedPsn();
            Verdict v = held.state(psn) == ReorderBuffer.ACTION ? executeHeld(psn) : Verdict.OK;
            forget(psn); // executed, or refused: a refused packet must be sent again in full
            if (v != Verdict.OK) {
                ackSender.nak(psn, v);
                return;
            }
            inbound.advance();
        }
    }

    private Verdict executeHeld(int psn) {
        Verdict error = held.error(psn);
        if (error != null) {
            return error;
        }
        return switch (held.type(psn)) {
            case TYPE_WRITE -> receiver.consumeForImmediate(held.immediate(psn), held.length(psn));
            case TYPE_SEND -> {
                receiver.completeSend(held.length(psn), (held.flags(psn) & F_IMM) != 0, held.immediate(psn));
                yield Verdict.OK;
            }
            case TYPE_READ_REQ -> {
                Verdict v = held.length(psn) < 0 ? Verdict.NAK_INVALID_REQUEST
                        : access.checkRead(held.key(psn), held.address(psn), held.length(psn));
                yield v != Verdict.OK ? v
                        : access.executeRead(held.ssn(psn), held.key(psn), held.address(psn), held.length(psn));
            }
            case TYPE_ATOMIC_REQ -> {
                Verdict v = access.checkAtomic(held.key(psn), held.address(psn));
                yield v != Verdict.OK ? v : access.executeAtomic(held.ssn(psn), held.compareAdd(psn), held.swap(psn),
                        (held.flags(psn) & F_CMP_SWAP) != 0);
            }
            default -> Verdict.OK;
        };
    }

    private void forget(int psn) {
        if (inbound.forget(psn)) {
            held.clear(psn);
        }
    }

    // ---------------------------------------------------------------- direct placement

    /**
     * For an RDMA write packet not received yet, of which only the header is known: where its
     * {@code payload} bytes may be received, if it is the next one in order and passes
     * {@link RemoteAccess#checkWrite} (the check it meets again when executed); null otherwise
     * (out-of-order, duplicate and bad packets are declined and arrive whole).
     */
    WritePlacement placement(DataFrame d, int payload) {
        if (d.psn() != inbound.expectedPsn() || payload <= 0
                || access.checkWrite(d, payload) != RemoteAccess.WriteCheck.OK
                || !access.target().segment.scope().isAlive()) {
            return null;
        }
        return placement.accept(d, payload, access);
    }

    /**
     * Right after {@link #placement} accepted a packet: the bytes from its place on that may be
     * written ahead of their packets (see {@link WritePlacement#room}); only its own payload while
     * packets are held ahead of order.
     */
    long placementRoom() {
        return inbound.hasHoles() ? placement.length() : placement.room();
    }

    /** After the placed packet was executed: where the rest of its write goes next (see {@link WritePlacement#predictNext}). */
    WritePlacement predictNext() {
        return placement.predictNext(inbound.expectedPsn(), inbound.hasHoles());
    }

    /**
     * A packet of a coalesced receive whose payload the wire received right behind that of the
     * WRITE packet executed last ({@link PacketDispatcher#onPlacedRun}, already routed): executed as
     * {@link #onPacket} would execute it, if it is the next in order and continues that write
     * exactly ({@link WritePlacement#continues}, which stands for the op checks and the key check)
     * and nothing else must happen with it: no packet is held ahead of order, and it is not the
     * write's last packet with an immediate (which consumes a receive). Returns false otherwise,
     * and the wire hands it over on its own. A piggy-backed ACK it carries is the dispatcher's.
     */
    boolean onPlacedContinuation(DataFrame d, int length, long now) {
        int flags = d.flags();
        int payload = length - HEADER_LENGTH;
        if (inbound.hasHoles() || (flags & (F_LAST | F_IMM)) == (F_LAST | F_IMM)
                || d.psn() != inbound.expectedPsn() || !placement.continues(d, payload)) {
            return false;
        }
        placement.acceptNext(payload);
        acks.onPacketSize(length);
        inbound.advance(); // nothing held ahead of order: nothing to forget, nothing to drain
        acks.onAccepted(now);
        if ((flags & F_ACK_REQ) != 0) {
            acks.onAckRequested(now);
        }
        return true;
    }

    /**
     * Whether the {@code count} packets from {@code firstPsn} on are all duplicates (before the
     * expected PSN, or held ahead of a hole already): if so they are counted and answered (an ACK at
     * once unless one left within the ACK delay, {@link AckScheduler#onDuplicate}) as if each had been received, and the
     * wire may drop them unread.
     */
    boolean discardDuplicates(int firstPsn, int count, long now) {
        for (int i = 0; i < count; i++) {
            if (inbound.classify(firstPsn + i) != InboundStream.Arrival.DUPLICATE) {
                return false;
            }
        }
        onDuplicates(count, now);
        return true;
    }

    private void onDuplicates(int count, long now) {
        counters.add(Counter.DUPLICATES, count);
        acks.onDuplicate(now);
    }

    // ---------------------------------------------------------------- acknowledgements and errors

    /** Sends an explicit ACK when one is due. Returns 1 if it sent one. */
    int doWork(long now) {
        return ackSender.doWork(now);
    }

    /** Whether an ACK asked for at once waits for the next cycle ({@link AckScheduler#owesRequestedAck}). */
    boolean owesRequestedAck() {
        return acks.owesRequestedAck();
    }

    /** Whether no ACK is owed and no hole waits to be filled (nothing for a timer to do). */
    boolean quiet() {
        return !acks.owesAck() && !inbound.hasHoles();
    }

    /** A packet for a queue pair in ERR: repeats the error NAK it may be a retransmission for. */
    void onPacketInError(HeaderFlyweight h) {
        ackSender.onPacketInError(h);
    }

    /** Completes every posted receive with WR_FLUSH_ERR (queue pair in ERR). */
    int flush() {
        return receiver.flush();
    }
}
