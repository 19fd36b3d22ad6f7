package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The inbound half of a queue pair: receives the peer's reliable stream. Executes packets in PSN
 * order, exactly once; places RDMA-write payloads (and responses to our own reads) at their target
 * as soon as they arrive, even out of order, and records what must still happen in order (an
 * immediate to deliver, a read or atomic to execute, an access error to report). Generates
 * cumulative ACKs with SACK blocks, delayed and piggy-backed, immediately on duplicates and holes,
 * and RNR and error NAKs. Progress agent thread only.
 */
final class Responder implements Transmitter.PiggyBack {
    private static final VarHandle LONG_HANDLE = ValueLayout.JAVA_LONG.varHandle();
    private static final int OK = 0;
    private static final int RNR = -1;
    private static final int DROP = -2;
    private static final long MAX_SACK_REFRESH_NANOS = 50_000_000;

    private static final byte REC_NONE = 0;
    private static final byte REC_PLACED = 1;
    private static final byte REC_ACTION = 2;

    private final SoftQueuePair qp;
    private final SoftDevice device;
    private final int windowSize;
    private final int mask;
    private final long[] received;
    private final byte[] recState;
    private final byte[] recType;
    private final short[] recFlags;
    private final long[] recAddress;
    private final long[] recKey;
    private final int[] recLength;
    private final int[] recImmediate;
    private final long[] recOperand1;
    private final long[] recOperand2;
    private final long[] recSwap;
    private final long ackDelayNanos;
    private final int ackEvery;
    /** The response packets of the peer's stream, read by their own names. */
    private final ResponseFrame response = new ResponseFrame();

    private int ePsn;
    private int highestReceived;
    private int outOfOrderCount;
    private volatile long rqConsumed;
    /** MSN of the message that will consume the receive at {@link #rqConsumed}. */
    private int msnExpected;

    private boolean errorNakValid;
    private int errorNakPsn;
    private int errorNakSyndrome;
    private boolean ackPending;
    private boolean ackNow;
    private boolean droppedOutOfOrder;
    private long ackDeadline;
    private MemorySegment placementSegment;
    private long placementOffset;
    private KeyTable.Entry placedEntry;
    private int placedPsn;
    private long placedBase;
    private long placedOffset;
    private int placedPayload;
    private int placedMsgLength;
    private int predictedPayloadLength;
    private int packetsSinceAck;
    /**
     * Packets after which an ACK goes at once: {@code ackEvery}, or fewer when half the window this
     * side advertised is smaller, because a sender that honours the window stalls when it is full.
     */
    private int ackAfter;
    /**
     * The peer's packet size as far as seen: the largest data packet received (header included).
     * Window and ACK threshold count in its packets, whose MTU may differ from this side's.
     */
    private int peerPacketBytes;
    /** This side's packet size, counted in until a packet of the peer's arrived. */
    private final int ownPacketBytes;
    /** While holes exist: when to repeat the last ACK (its SACK may have been lost), and the backoff. */
    private long sackRefreshAt;
    private long sackRefreshNanos;

    private final ResponseQueue responses;
    private final Completer completer;

    Responder(SoftQueuePair qp, SoftDevice device, ResponseQueue responses, Completer completer) {
        this.qp = qp;
        this.device = device;
        this.responses = responses;
        this.completer = completer;
        this.windowSize = device.softConfig().sendWindow();
        this.mask = windowSize - 1;
        received = new long[windowSize / 64];
        recState = new byte[windowSize];
        recType = new byte[windowSize];
        recFlags = new short[windowSize];
        recAddress = new long[windowSize];
        recKey = new long[windowSize];
        recLength = new int[windowSize];
        recImmediate = new int[windowSize];
        recOperand1 = new long[windowSize];
        recOperand2 = new long[windowSize];
        recSwap = new long[windowSize];
        ackDelayNanos = device.softConfig().ackDelay().toNanos();
        sackRefreshNanos = 4 * ackDelayNanos;
        ackEvery = device.softConfig().ackEvery();
        ownPacketBytes = qp.config().mtu() + HEADER_LENGTH;
        // until the first ACK the peer assumes a window of its own: count it in the largest packets possible
        ackAfter = ackThreshold(OutboundStream.INITIAL_PEER_WINDOW_BYTES, device.maxPacketSize());
    }

    private int ackThreshold(long advertisedWindowBytes, int packetBytes) {
        return (int) Math.max(1, Math.min(ackEvery, advertisedWindowBytes / 2 / packetBytes));
    }

    /** Receives consumed so far (read by posting threads to see whether the receive queue is full). */
    long receivesConsumed() {
        return rqConsumed;
    }

    /** Sets the first PSN expected from the peer (at RTR). */
    void start(int psn) {
        ePsn = psn;
        highestReceived = psn;
    }

    /** Next PSN expected: the cumulative ACK. */
    @Override
    public int expectedPsn() {
        return ePsn;
    }

    // ---------------------------------------------------------------- bitmap of out-of-order arrivals

    private boolean isReceived(int psn) {
        int i = psn & mask;
        return (received[i >>> 6] & (1L << i)) != 0;
    }

    private void setReceived(int psn, boolean on) {
        int i = psn & mask;
        if (on) {
            received[i >>> 6] |= 1L << i;
        } else {
            received[i >>> 6] &= ~(1L << i);
        }
    }

    // ---------------------------------------------------------------- packets

    /** One data packet of the peer's stream (already checked for token, source and form). */
    void onPacket(DataFrame h, MemorySegment packet, int length, long now) {
        if (length > peerPacketBytes) {
            peerPacketBytes = length;
        }
        int psn = h.psn();
        int d = psn - ePsn;
        if (d < 0) {
            qp.countersSet().increment(Counter.DUPLICATES);
            ackNow = true;
            ackPending = true;
            return;
        }
        if (d >= windowSize) {
            qp.countersSet().increment(Counter.OUT_OF_WINDOW);
            return;
        }
        int payload = length - HEADER_LENGTH;
        if (d == 0) {
            forgetRecord(psn); // executing the packet itself now (placing its data again is harmless)
            int r = execute(h, packet, payload, now);
            if (r == DROP) {
                return;
            }
            if (r != OK) {
                nak(psn, r);
                return;
            }
            ePsn++;
            drain(now);
            noteArrival(now);
            return;
        }
        if (isReceived(psn)) {
            qp.countersSet().increment(Counter.DUPLICATES);
            ackNow = true;
            ackPending = true;
            return;
        }
        qp.countersSet().increment(Counter.OUT_OF_ORDER);
        if (!record(h, packet, payload, now)) {
            droppedOutOfOrder = true;
            ackNow = true;
            ackPending = true;
            return;
        }
        boolean newHole = !isReceived(psn - 1);
        setReceived(psn, true);
        outOfOrderCount++;
        if (before(highestReceived, psn)) {
            highestReceived = psn;
        }
        if (newHole) {
            ackNow = true;
        }
        noteArrival(now);
    }

    private void noteArrival(long now) {
        if (!ackPending) {
            ackPending = true;
            ackDeadline = now + ackDelayNanos;
        }
        if (++packetsSinceAck >= ackAfter) {
            ackNow = true;
        }
    }

    /** Drops what was recorded for {@code psn} out of order, if anything. */
    private void forgetRecord(int psn) {
        if (isReceived(psn)) {
            setReceived(psn, false);
            recState[psn & mask] = REC_NONE;
            outOfOrderCount--;
        }
    }

    /** Executes an in-order packet. Returns OK, RNR, DROP or a NAK syndrome. */
    private int execute(DataFrame h, MemorySegment packet, int payload, long now) {
        int flags = h.flags();
        return switch (h.type()) {
            case TYPE_SEND -> {
                int r = placeSend(h, packet, payload, true);
                if (r == OK && (flags & F_LAST) != 0) {
                    completeSendMessage(h.messageLength(), (flags & F_IMM) != 0, h.immediate());
                }
                yield r;
            }
            case TYPE_WRITE -> {
                int r = placeWrite(h, packet, payload);
                if (r == OK && (flags & (F_LAST | F_IMM)) == (F_LAST | F_IMM)) {
                    r = consumeForImmediate(h.immediate(), h.messageLength());
                }
                yield r;
            }
            case TYPE_READ_REQ -> executeRead(h.ssn(), h.remoteKey(), h.remoteAddress(), h.messageLength());
            case TYPE_ATOMIC_REQ -> executeAtomic(h.ssn(), h.remoteKey(), h.remoteAddress(), h.compareAdd(),
                    h.swap(), (flags & F_CMP_SWAP) != 0);
            case TYPE_READ_RESP -> {
                completer.onReadResponse(response.wrap(packet), packet, payload, now);
                yield OK;
            }
            case TYPE_ATOMIC_RESP -> {
                completer.onAtomicResponse(response.wrap(packet));
                yield OK;
            }
            default -> DROP;
        };
    }

    /** Handles an out-of-order packet; returns false if it was dropped (to be retransmitted). */
    private boolean record(DataFrame h, MemorySegment packet, int payload, long now) {
        int i = h.psn() & mask;
        int flags = h.flags();
        int type = h.type();
        recType[i] = (byte) type;
        recFlags[i] = (short) flags;
        switch (type) {
            case TYPE_WRITE -> {
                if ((flags & F_ORDERED) != 0) {
                    return false;
                }
                int r = placeWrite(h, packet, payload);
                if (r == DROP) {
                    return false;
                }
                if (r != OK) {
                    recState[i] = REC_ACTION;
                    recImmediate[i] = r; // the syndrome to NAK with, in order
                    recType[i] = (byte) TYPE_ACK;
                } else if ((flags & (F_LAST | F_IMM)) == (F_LAST | F_IMM)) {
                    recState[i] = REC_ACTION;
                    recImmediate[i] = h.immediate();
                    recLength[i] = h.messageLength();
                } else {
                    recState[i] = REC_PLACED;
                }
                return true;
            }
            case TYPE_READ_REQ, TYPE_ATOMIC_REQ -> {
                recState[i] = REC_ACTION;
                recAddress[i] = h.remoteAddress();
                recKey[i] = h.remoteKey();
                recLength[i] = h.messageLength();
                recOperand1[i] = h.ssn();
                recOperand2[i] = h.compareAdd();
                recSwap[i] = type == TYPE_ATOMIC_REQ ? h.swap() : 0;
                return true;
            }
            case TYPE_READ_RESP -> {
                completer.onReadResponse(response.wrap(packet), packet, payload, now);
                recState[i] = REC_PLACED;
                return true;
            }
            case TYPE_ATOMIC_RESP -> {
                completer.onAtomicResponse(response.wrap(packet));
                recState[i] = REC_PLACED;
                return true;
            }
            case TYPE_SEND -> {
                if (placeSend(h, packet, payload, false) != OK) {
                    return false;
                }
                if ((flags & F_LAST) != 0) {
                    recState[i] = REC_ACTION;
                    recLength[i] = h.messageLength();
                    recImmediate[i] = h.immediate();
                } else {
                    recState[i] = REC_PLACED;
                }
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /** Executes recorded packets that are now in order. */
    private void drain(long now) {
        while (outOfOrderCount > 0 && isReceived(ePsn)) {
            int i = ePsn & mask;
            int r = OK;
            if (recState[i] == REC_ACTION) {
                r = switch (recType[i]) {
                    case TYPE_WRITE -> consumeForImmediate(recImmediate[i], recLength[i]);
                    case TYPE_SEND -> {
                        completeSendMessage(recLength[i], (recFlags[i] & F_IMM) != 0, recImmediate[i]);
                        yield OK;
                    }
                    case TYPE_READ_REQ -> executeRead(recOperand1[i], recKey[i], recAddress[i], recLength[i]);
                    case TYPE_ATOMIC_REQ -> executeAtomic(recOperand1[i], recKey[i], recAddress[i], recOperand2[i],
                            recSwap[i], (recFlags[i] & F_CMP_SWAP) != 0);
                    default -> recImmediate[i]; // a recorded access error
                };
            }
            forgetRecord(ePsn); // executed, or refused: a refused packet must be sent again in full
            if (r != OK) {
                nak(ePsn, r);
                return;
            }
            ePsn++;
        }
    }

    // ---------------------------------------------------------------- operations

    /**
     * Places a SEND payload into the receive its message consumes (found by MSN, so out-of-order
     * packets land too). Errors are only acted on in order; out of order they drop the packet.
     */
    private int placeSend(DataFrame h, MemorySegment packet, int payload, boolean inOrder) {
        int msgLength = h.messageLength();
        long offset = h.messageOffset();
        int k = (int) h.msn() - msnExpected;
        if (msgLength < 0 || offset < 0 || payload > msgLength - offset || k < 0 || (inOrder && k != 0)) {
            return badPacket();
        }
        if (k >= qp.rqPosted() - rqConsumed) {
            return inOrder ? RNR : DROP;
        }
        RecvWqe rw = qp.recvWqe(rqConsumed + k);
        if (!rw.resolved) {
            WcStatus err = Sgl.resolve(device.keyTable(), qp.pd(), rw.numSge, rw.sgeAddress, rw.sgeLength,
                    rw.sgeKey, true, rw.sgeSegment, rw.sgeOffset);
            if (err != null) {
                return inOrder ? failReceive(rw, err, SYNDROME_NAK_REMOTE_OPERATION) : DROP;
            }
            rw.resolved = true;
        }
        if (msgLength > rw.capacity) {
            return inOrder ? failReceive(rw, WcStatus.LOC_LEN_ERR, SYNDROME_NAK_INVALID_REQUEST) : DROP;
        }
        try {
            Sgl.scatter(packet, HEADER_LENGTH, payload, rw.numSge, rw.sgeSegment, rw.sgeOffset, rw.sgeLength, offset);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return inOrder ? failReceive(rw, WcStatus.LOC_PROT_ERR, SYNDROME_NAK_REMOTE_OPERATION) : DROP;
        }
        return OK;
    }

    /** The last packet of a SEND executed in order: its receive completes. */
    private void completeSendMessage(int msgLength, boolean hasImmediate, int immediate) {
        retireReceive(WcStatus.SUCCESS, WcOpcode.RECV, msgLength, hasImmediate ? immediate : 0, hasImmediate);
        msnExpected++;
    }

    /**
     * Completes the oldest posted receive. The slot is counted free before the completion becomes
     * visible, so a caller may re-post from its completion without finding the queue full.
     */
    private void retireReceive(WcStatus status, WcOpcode opcode, int length, int immediate, boolean hasImmediate) {
        long wrId = qp.recvWqe(rqConsumed).wrId;
        rqConsumed++;
        qp.completeRecv(wrId, status, opcode, length, immediate, hasImmediate);
    }

    private int badPacket() {
        qp.countersSet().increment(Counter.BAD_PACKETS);
        return DROP;
    }

    /** Completes the receive with a local error and fails this queue pair; returns the NAK syndrome. */
    private int failReceive(RecvWqe rw, WcStatus status, int syndrome) {
        retireReceive(status, WcOpcode.RECV, 0, 0, false);
        msnExpected++;
        qp.failResponder();
        return syndrome;
    }

    private int consumeForImmediate(int immediate, int msgLength) {
        if (rqConsumed == qp.rqPosted()) {
            return RNR;
        }
        retireReceive(WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, msgLength, immediate, true);
        msnExpected++;
        return OK;
    }

    /** Validates and places an RDMA-write payload. */
    private int placeWrite(DataFrame h, MemorySegment packet, int payload) {
        int msgLength = h.messageLength();
        long offset = h.messageOffset();
        if (msgLength < 0 || offset < 0 || payload > msgLength - offset) {
            return badPacket();
        }
        if (msgLength == 0) {
            return OK;
        }
        KeyTable.Entry e = remoteEntry(h.remoteKey(), AccessFlags.REMOTE_WRITE);
        long base = e == null ? -1 : e.offsetOf(h.remoteAddress() - offset, msgLength);
        if (base < 0) {
            return SYNDROME_NAK_REMOTE_ACCESS;
        }
        if (device.placedPayload()) {
            return OK; // the wire received the payload at its target already (see writePlacement)
        }
        try {
            MemorySegment.copy(packet, HEADER_LENGTH, e.segment, base + offset, payload);
        } catch (IllegalStateException | IndexOutOfBoundsException ex) {
            return SYNDROME_NAK_REMOTE_ACCESS;
        }
        return OK;
    }

    /**
     * For an RDMA write packet not received yet, of which only the header is known: whether it is
     * the next one in order and passes every check {@link #placeWrite} makes, so that the wire may
     * receive its {@code payload} bytes at {@link #placementSegment()} from
     * {@link #placementOffset()}. The packet then comes through {@link #onPacket} as usual, which
     * skips the copy. Out-of-order, duplicate and bad packets are declined and arrive whole.
     */
    boolean writePlacement(DataFrame h, int payload) {
        if (h.psn() != ePsn || payload <= 0) {
            return false;
        }
        int msgLength = h.messageLength();
        long offset = h.messageOffset();
        if (msgLength <= 0 || offset < 0 || payload > msgLength - offset) {
            return false;
        }
        KeyTable.Entry e = remoteEntry(h.remoteKey(), AccessFlags.REMOTE_WRITE);
        long base = e == null ? -1 : e.offsetOf(h.remoteAddress() - offset, msgLength);
        if (base < 0 || !e.segment.scope().isAlive()) {
            return false;
        }
        placementSegment = e.segment;
        placementOffset = base + offset;
        placedEntry = e;
        placedPsn = h.psn();
        placedBase = base;
        placedOffset = offset;
        placedPayload = payload;
        placedMsgLength = msgLength;
        return true;
    }

    /**
     * After the packet {@link #writePlacement} accepted last was executed: where the next packet of
     * the same write will go, so that the wire may receive the next datagram there without looking
     * at its header first. The place is the message's next {@code MTU} bytes (the sender's MTU: the
     * size of this non-last packet), inside the message's target, whose bytes are undefined until
     * the write completes, so a datagram that turns out to be another one does no harm there: the
     * packet that covers those bytes has been neither executed (nothing was executed since the
     * placed packet) nor placed ahead of order (nothing is recorded), so it will still write them.
     * False at the end of the message, if anything else was executed since, while out-of-order
     * packets are recorded, or if the region was deregistered meanwhile. Called right before the
     * wire receives, so it judges the state of that moment.
     */
    boolean predictNextWrite() {
        KeyTable.Entry e = placedEntry;
        if (e == null || ePsn != placedPsn + 1 || outOfOrderCount != 0 || !e.valid
                || !e.segment.scope().isAlive()) {
            return false;
        }
        long next = placedOffset + placedPayload;
        long remaining = placedMsgLength - next;
        if (remaining <= 0) {
            return false;
        }
        placementSegment = e.segment;
        placementOffset = placedBase + next;
        predictedPayloadLength = (int) Math.min(remaining, placedPayload);
        return true;
    }

    int predictedPayloadLength() {
        return predictedPayloadLength;
    }

    MemorySegment placementSegment() {
        return placementSegment;
    }

    long placementOffset() {
        return placementOffset;
    }

    private KeyTable.Entry remoteEntry(long rkey, int access) {
        KeyTable.Entry e = device.keyTable().byRemoteKey(rkey);
        return e != null && e.pd == qp.pd() && (e.access & access) != 0 ? e : null;
    }

    private int executeRead(long ssn, long rkey, long address, int length) {
        if (length < 0) {
            return SYNDROME_NAK_INVALID_REQUEST;
        }
        if (length > 0) {
            KeyTable.Entry e = remoteEntry(rkey, AccessFlags.REMOTE_READ);
            if (e == null || e.offsetOf(address, length) < 0) {
                return SYNDROME_NAK_REMOTE_ACCESS;
            }
        }
        if (!responses.hasRoom()) {
            return SYNDROME_NAK_INVALID_REQUEST;
        }
        responses.addRead(ssn, rkey, address, length);
        return OK;
    }

    private int executeAtomic(long ssn, long rkey, long address, long compareAdd, long swap, boolean cmpSwap) {
        KeyTable.Entry e = remoteEntry(rkey, AccessFlags.REMOTE_ATOMIC);
        long off = e == null ? -1 : e.offsetOf(address, 8);
        if (off < 0) {
            return SYNDROME_NAK_REMOTE_ACCESS;
        }
        if ((address & 7) != 0) {
            return SYNDROME_NAK_INVALID_REQUEST;
        }
        if (!responses.hasRoom()) {
            return SYNDROME_NAK_INVALID_REQUEST;
        }
        long old;
        try {
            old = cmpSwap ? (long) LONG_HANDLE.compareAndExchange(e.segment, off, compareAdd, swap)
                    : (long) LONG_HANDLE.getAndAdd(e.segment, off, compareAdd);
        } catch (IllegalStateException | IllegalArgumentException | IndexOutOfBoundsException ex) {
            return SYNDROME_NAK_REMOTE_ACCESS;
        }
        responses.addAtomic(ssn, old);
        return OK;
    }

    // ---------------------------------------------------------------- acknowledgements

    /** A data packet carrying the current cumulative ACK was just sent. */
    @Override
    public void ackCarried() {
        if (outOfOrderCount == 0 && !droppedOutOfOrder) {
            ackPending = false;
            ackNow = false;
            packetsSinceAck = 0;
        }
    }

    /** Sends an explicit ACK when one is due. Returns 1 if it sent one. */
    int doWork(long now) {
        if (ackPending && (ackNow || now - ackDeadline >= 0)) {
            sendAck(SYNDROME_ACK, ePsn);
            sackRefreshNanos = 4 * ackDelayNanos;
            sackRefreshAt = now + sackRefreshNanos;
            return 1;
        }
        if (outOfOrderCount > 0 && now - sackRefreshAt >= 0) {
            // Holes and nothing new to say: the ACK that reported them may have been lost, and the
            // sender cannot resend what it does not know is missing. Repeat it, backing off.
            sendAck(SYNDROME_ACK, ePsn);
            sackRefreshNanos = Math.min(Math.max(sackRefreshNanos * 2, 4 * ackDelayNanos), MAX_SACK_REFRESH_NANOS);
            sackRefreshAt = now + sackRefreshNanos;
            return 1;
        }
        return 0;
    }

    /**
     * A packet for a queue pair that entered ERR after NAKing it: the NAK may have been lost, so
     * answer a retransmission of that PSN with the same NAK (else the requester would only see a
     * retry timeout).
     */
    void onPacketInError(HeaderFlyweight h) {
        if (errorNakValid && h.type() != TYPE_ACK && h.psn() == errorNakPsn) {
            sendAck(errorNakSyndrome, errorNakPsn);
        }
    }

    private void nak(int psn, int syndrome) {
        if (syndrome == RNR) {
            qp.countersSet().increment(Counter.RNR_NAKS_SENT);
            sendAck(SYNDROME_RNR_NAK, psn);
        } else {
            errorNakValid = true;
            errorNakPsn = psn;
            errorNakSyndrome = syndrome;
            qp.countersSet().increment(Counter.NAKS_SENT);
            sendAck(syndrome, psn);
        }
    }

    private void sendAck(int syndrome, int psn) {
        int packet = peerPacketBytes > 0 ? peerPacketBytes : ownPacketBytes;
        long window = device.receiveWindowBytes(packet);
        ackAfter = ackThreshold(window, packet);
        AckFrame h = device.txAck();
        h.start(TYPE_ACK, droppedOutOfOrder ? F_GO_BACK : 0, qp.peerQpn(), qp.peerToken(), psn).ackPsn(ePsn);
        h.window(window).syndrome(syndrome);
        int bits = syndrome == SYNDROME_ACK ? writeSackBitmap(h) : 0;
        h.sackBits(bits);
        device.transmit(qp, HEADER_LENGTH + sackBytes(bits), true);
        qp.countersSet().increment(Counter.ACKS_SENT);
        ackPending = false;
        ackNow = false;
        droppedOutOfOrder = false;
        packetsSinceAck = 0;
    }

    /**
     * Writes the SACK bitmap: bit i of the payload says whether PSN {@code ePsn + 1 + i} arrived.
     * It covers everything received beyond the cumulative ACK (up to the window), so every delivery
     * is reported however many holes there are. Returns the number of bits.
     */
    private int writeSackBitmap(AckFrame h) {
        if (outOfOrderCount == 0) {
            return 0;
        }
        int bits = Math.min(highestReceived - ePsn, Math.min(windowSize, MAX_SACK_BITS));
        if (bits <= 0) {
            return 0;
        }
        int words = (bits + 63) >>> 6;
        int psn = ePsn + 1;
        for (int w = 0; w < words; w++) {
            long v = 0;
            int n = Math.min(64, bits - w * 64);
            for (int b = 0; b < n; b++, psn++) {
                if (isReceived(psn)) {
                    v |= 1L << b;
                }
            }
            h.sackWord(w, v);
        }
        return bits;
    }

    /** Completes every posted receive with WR_FLUSH_ERR (queue pair in ERR). */
    int flush() {
        int n = 0;
        long posted = qp.rqPosted();
        while (rqConsumed != posted) {
            retireReceive(WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, false);
            n++;
        }
        return n;
    }
}
