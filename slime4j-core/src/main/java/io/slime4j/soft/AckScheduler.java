package io.slime4j.soft;

/**
 * Decides when the receiving side sends an explicit ACK: after a delay (so that a data packet
 * going the other way can carry the ACK instead) in the middle of a message, at once when the
 * packet asks for it (the last packet of a write or send: its request completes on the ACK; while
 * a waiter drives the device, busy-polling or blocked on its sockets, in the next cycle, so that
 * the reply can carry it), on a
 * duplicate (unless an ACK left within the delay), a new hole or a packet
 * dropped ahead of order, after every {@code ackEvery} packets (fewer when half the advertised
 * window is smaller, because a sender that honours the window stalls when it is full), and, while
 * holes remain, again and again with backoff (the ACK that reported them may have been lost). It
 * also keeps the packet size windows are counted in. Pure bookkeeping: time comes in as
 * {@code now}, and {@link AckSender} does the sending. Progress agent thread only.
 */
final class AckScheduler {
    static final long MAX_SACK_REFRESH_NANOS = 50_000_000;

    /** What kind of ACK is due. */
    enum Due {
        NONE,
        /** News to tell: the delay expired or something asked for an ACK at once. */
        ACK,
        /** Nothing new, but holes remain: repeat the last ACK. */
        SACK_REFRESH
    }

    private final long ackDelayNanos;
    private final int ackEvery;
    /**
     * Whether an ACK asked for at once waits for the next duty cycle, asked when such a request
     * arrives: while a thread waiting for completions drives the device (busy-polling, or a default
     * device's waiter blocked on its sockets), the thread that receives a request is usually the
     * one that answers it, and its reply, posted before the next cycle, carries the ACK (one
     * datagram, and no system call between the request and its completion on the receiver's
     * thread). Otherwise (the agent takes a stream in) it leaves in the cycle that received the
     * request.
     */
    private final java.util.function.BooleanSupplier requestWaitsForNextCycle;
    /** An ACK was asked for at once in the cycle of {@link #requestedAt} (when it waits a cycle). */
    private boolean requested;
    private long requestedAt;
    /** This side's packet size, counted in until a packet of the peer's arrived. */
    private final int ownPacketBytes;
    /**
     * The peer's packet size as far as seen: the largest data packet received (header included).
     * Window and ACK threshold count in its packets, whose MTU may differ from this side's.
     */
    private int peerPacketBytes;
    private boolean pending;
    private boolean now;
    private boolean droppedAhead;
    private long deadline;
    private int packetsSinceAck;
    /** Packets after which an ACK goes at once. */
    private int ackAfter;
    private long refreshAt;
    private long refreshNanos;
    /** When the last explicit ACK left, if one did ({@link #ackSent}). */
    private long lastAckAt;
    private boolean ackSent;

    /**
     * @param initialPeerWindowBytes what the peer assumes of this side's window before the first ACK
     * @param largestPacketBytes     the largest packet possible, to count that assumption in
     */
    AckScheduler(long ackDelayNanos, int ackEvery, int ownPacketBytes, long initialPeerWindowBytes,
                 int largestPacketBytes) {
        this(ackDelayNanos, ackEvery, ownPacketBytes, initialPeerWindowBytes, largestPacketBytes, () -> false);
    }

    /**
     * As above; while {@code requestWaitsForNextCycle} holds, an ACK asked for at once leaves in the
     * next duty cycle, unless a data packet carries it first (while waiters drive the device).
     */
    AckScheduler(long ackDelayNanos, int ackEvery, int ownPacketBytes, long initialPeerWindowBytes,
                 int largestPacketBytes, java.util.function.BooleanSupplier requestWaitsForNextCycle) {
        this.requestWaitsForNextCycle = requestWaitsForNextCycle;
        this.ackDelayNanos = ackDelayNanos;
        this.ackEvery = ackEvery;
        this.ownPacketBytes = ownPacketBytes;
        this.refreshNanos = 4 * ackDelayNanos;
        this.ackAfter = threshold(initialPeerWindowBytes, largestPacketBytes);
    }

    private int threshold(long advertisedWindowBytes, int packetBytes) {
        return (int) Math.max(1, Math.min(ackEvery, advertisedWindowBytes / 2 / packetBytes));
    }

    /** A data packet of {@code length} bytes arrived. */
    void onPacketSize(int length) {
        if (length > peerPacketBytes) {
            peerPacketBytes = length;
        }
    }

    /** The size the advertised window is counted in: the peer's packets, or this side's until one came. */
    int packetBytes() {
        return peerPacketBytes > 0 ? peerPacketBytes : ownPacketBytes;
    }

    /** A packet was accepted (in order, or held ahead): an ACK is owed, by the delay or the count. */
    void onAccepted(long nowNanos) {
        if (!pending) {
            pending = true;
            deadline = nowNanos + ackDelayNanos;
        }
        if (++packetsSinceAck >= ackAfter) {
            now = true;
        }
    }

    /**
     * An accepted packet asked for an ACK at once (the last packet of a write or send), in the
     * cycle whose clock reads {@code nowNanos}.
     */
    void onAckRequested(long nowNanos) {
        if (!requestWaitsForNextCycle.getAsBoolean()) {
            now = true;
        } else if (!requested) {
            requested = true;
            requestedAt = nowNanos;
        }
    }

    /**
     * A duplicate arrived: the sender may have missed our ACK, so answer at once — unless an
     * explicit ACK left less than the ACK delay ago: that one cannot have been missed yet (a copy
     * the network made of a packet, right behind it, is no news), and the delayed ACK answers.
     */
    void onDuplicate(long nowNanos) {
        if (!pending) {
            pending = true;
            deadline = nowNanos + ackDelayNanos;
        }
        if (!ackSent || nowNanos - lastAckAt >= ackDelayNanos) {
            now = true;
        }
    }

    /** A packet opened a new hole: tell the sender at once (with the SACK). */
    void onNewHole() {
        now = true;
    }

    /** A packet ahead of order could not be held: ask the sender to go back. */
    void onDroppedAhead() {
        droppedAhead = true;
        now = true;
        pending = true;
    }

    /** Whether an ACK is owed (by the delay, the count or at once). */
    boolean owesAck() {
        return pending || now;
    }

    /** Whether an ACK asked for at once waits for the next cycle (only while waiters drive the device). */
    boolean owesRequestedAck() {
        return requested;
    }

    /** Whether the next ACK asks the sender to resend everything not SACKed. */
    boolean goBack() {
        return droppedAhead;
    }

    /** A data packet carrying the current cumulative ACK was sent; it replaces an ACK unless holes need telling. */
    void onCarried(boolean holes) {
        if (!holes && !droppedAhead) {
            pending = false;
            now = false;
            requested = false;
            packetsSinceAck = 0;
        }
    }

    /** What is due at {@code nowNanos}, given whether holes remain. */
    Due due(long nowNanos, boolean holes) {
        if (pending && (now || nowNanos - deadline >= 0 || requested && nowNanos - requestedAt > 0)) {
            return Due.ACK;
        }
        if (holes && nowNanos - refreshAt >= 0) {
            return Due.SACK_REFRESH;
        }
        return Due.NONE;
    }

    /** An ACK or NAK was sent advertising {@code windowBytes} in packets of {@code packetBytes}. */
    void onSent(long windowBytes, int packetBytes) {
        ackAfter = threshold(windowBytes, packetBytes);
        pending = false;
        now = false;
        requested = false;
        droppedAhead = false;
        packetsSinceAck = 0;
    }

    /** The ACK {@code due} was sent at {@code nowNanos}: when to repeat it if holes remain. */
    void scheduleRefresh(Due due, long nowNanos) {
        lastAckAt = nowNanos;
        ackSent = true;
        if (due == Due.ACK) {
            refreshNanos = 4 * ackDelayNanos;
        } else {
            refreshNanos = Math.min(Math.max(refreshNanos * 2, 4 * ackDelayNanos), MAX_SACK_REFRESH_NANOS);
        }
        refreshAt = nowNanos + refreshNanos;
    }

    /** Packets after which an ACK goes at once (for tests and diagnostics). */
    int ackAfter() {
        return ackAfter;
    }
}
