package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.HEADER_LENGTH;
import static io.slime4j.soft.HeaderFlyweight.before;

import java.util.ArrayDeque;

/**
 * The sending side of one reliable stream: PSNs (the oldest unacknowledged, {@link #una()}, and
 * the next to send, {@link #nxt()}), the send window of {@link SendSegment}s holding them, the
 * pipe (segments on the wire, neither delivered nor judged lost), the peer's advertised receive
 * window, and the queue of segments waiting to be sent again. It decides nothing about loss or
 * rate ({@link LossRecovery}, {@link CongestionControl}); it only keeps the books.
 * Progress agent thread only.
 */
final class OutboundStream {
    /** What a sender assumes of the peer's receive window until the first explicit ACK says. */
    static final long INITIAL_PEER_WINDOW_BYTES = 256 * 1024;

    private final SendSegment[] window;
    private final int mask;
    private final SendSegment.Owner owner;
    private final ArrayDeque<SendSegment> retransmitQueue = new ArrayDeque<>();
    private int una;
    private int nxt;
    private int pipe;
    /** Bytes the peer can absorb in flight; until it says, an assumption that fits any socket buffer. */
    private long peerWindowBytes = INITIAL_PEER_WINDOW_BYTES;
    /** The largest packet this stream sent (header included): what each packet in the pipe counts as. */
    private int largestSentBytes;
    /** The PSN of the first packet of {@link #largestSentBytes}. */
    private int largestSentPsn;
    /**
     * Whether the peer's window was said after it received a packet of {@link #largestSentBytes}
     * (so that it counts in that size; see {@link #peerWindowAllows}).
     */
    private boolean windowInLargest;
    /** Transmissions so far, new and repeated: {@link SendSegment#sendOrder}. */
    private long transmissions;

    /** A window of {@code capacity} PSNs (a power of two) starting at {@code initialPsn}. */
    OutboundStream(int capacity, int initialPsn, SendSegment.Owner owner) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("window capacity must be a power of two: " + capacity);
        }
        this.window = new SendSegment[capacity];
        this.mask = capacity - 1;
        this.owner = owner;
        this.una = initialPsn;
        this.nxt = initialPsn;
    }

    int una() { return una; }
    int nxt() { return nxt; }
    int capacity() { return window.length; }
    int inFlight() { return nxt - una; }
    int pipe() { return pipe; }
    boolean isEmpty() { return una == nxt; }

    /** Whether a new PSN may be taken: the window is not full. */
    boolean hasRoom() {
        return inFlight() < window.length;
    }

    /**
     * Whether the peer's advertised window has room for one more packet. The peer counts its window
     * in the largest packet it received from this stream (header included), and buffers as many of
     * them as its socket buffer holds at what the kernel charges for one. So each packet in the pipe
     * counts as the largest this stream sent once an ACK that covers the first of that size brought
     * the window (the peer then counts in it too), and as a full packet of {@code fullPacketBytes}
     * until then: before any window (the assumed one must fit any socket buffer), and after the
     * packets grew (the peer's last window, counted in smaller packets, would let in as many of the
     * larger ones, each charged more). Counting full packets throughout held a stream of 32-byte
     * messages at a 60 KiB MTU to three packets in flight: the peer's window, counted in its 96-byte
     * packets, was about 175 KB (docs/WIRE.md, flow control).
     */
    boolean peerWindowAllows(int fullPacketBytes) {
        return (long) pipe * countedPacketBytes(fullPacketBytes) < peerWindowBytes;
    }

    /** The peer's window in the packets the pipe counts in (see {@link #peerWindowAllows}). */
    long peerWindowPackets(int fullPacketBytes) {
        return peerWindowBytes / countedPacketBytes(fullPacketBytes);
    }

    private int countedPacketBytes(int fullPacketBytes) {
        return windowInLargest ? Math.max(largestSentBytes, HEADER_LENGTH) : fullPacketBytes;
    }

    /**
     * The peer's advertised receive window (bytes) from an explicit ACK whose cumulative PSN is
     * {@code ackPsn} (everything before it received); 0 means "not said".
     */
    void onWindowUpdate(long bytes, int ackPsn) {
        if (bytes > 0) {
            peerWindowBytes = bytes;
            if (!windowInLargest && largestSentBytes > 0 && before(largestSentPsn, ackPsn)) {
                windowInLargest = true;
            }
        }
    }

    /**
     * The segment goes on the wire now (first time or again): its send time and its place in the
     * order of transmissions (several leave at one {@code now} in a duty cycle's burst), and the pipe.
     */
    void sent(SendSegment s, long now) {
        int bytes = HEADER_LENGTH + s.payloadLength;
        if (bytes > largestSentBytes) {
            largestSentBytes = bytes;
            largestSentPsn = s.psn;
            windowInLargest = false;
        }
        s.sentAt = now;
        s.sendOrder = ++transmissions;
        enterPipe(s);
    }

    /** Takes the next PSN for a new packet and returns its (recycled) segment. */
    SendSegment claim(int type, int flags) {
        int psn = nxt++;
        int i = psn & mask;
        SendSegment s = window[i];
        if (s == null) {
            s = new SendSegment(owner);
            window[i] = s;
        }
        s.reset(psn, type, flags);
        return s;
    }

    /** The segment of {@code psn}, which must be in the window (or its last occupant). */
    SendSegment at(int psn) {
        return window[psn & mask];
    }

    /** Whether {@code psn} is sent and not yet cumulatively acknowledged. */
    boolean inWindow(int psn) {
        return !before(psn, una) && before(psn, nxt);
    }

    /** Everything before {@code psn} is acknowledged (the caller retired those segments). */
    void advanceTo(int psn) {
        una = psn;
    }

    /** The segment went on the wire. */
    void enterPipe(SendSegment s) {
        if (!s.inPipe) {
            s.inPipe = true;
            pipe++;
        }
    }

    /** The segment left the network: delivered, or judged lost. */
    void leavePipe(SendSegment s) {
        if (s.inPipe) {
            s.inPipe = false;
            pipe--;
        }
    }

    void queueRetransmit(SendSegment s) {
        if (!s.queuedForRetransmit) {
            s.queuedForRetransmit = true;
            retransmitQueue.add(s);
        }
    }

    /** The next segment to send again, or null. */
    SendSegment pollRetransmit() {
        SendSegment s = retransmitQueue.poll();
        if (s != null) {
            s.queuedForRetransmit = false;
        }
        return s;
    }

    boolean hasRetransmits() {
        return !retransmitQueue.isEmpty();
    }

    void clearRetransmits() {
        retransmitQueue.clear();
    }

    /** Stops the stream: every timer cancelled, nothing in flight or queued any more. */
    void halt(TimerWheel timers) {
        for (int p = una; before(p, nxt); p++) {
            SendSegment s = window[p & mask];
            if (s != null) {
                timers.cancel(s);
            }
        }
        retransmitQueue.clear();
        una = nxt;
        pipe = 0;
    }
}
