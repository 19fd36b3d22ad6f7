package io.slime4j.wire.udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;

/**
 * A run of datagrams held back to leave in one {@code sendmsg} with UDP generic segmentation
 * offload ({@code UDP_SEGMENT}): consecutive datagrams of one size to one destination (the last may
 * be shorter), each a header copied here and a payload gathered from where it lies (registered
 * memory: no Java copy), at most {@link #MAX_SEGMENTS} of them and {@link #MAX_BYTES} in all. The
 * kernel cuts the run into datagrams of the first one's size, so every segment arrives as the
 * datagram it was. Builds the {@code msghdr}, the iovecs and the control message; sending is
 * {@link NativeUdpSocket}'s. Sending thread only.
 */
final class GsoBurst {
    /** Segments per call: UDP_MAX_SEGMENTS of Linux before 5.x is 64. */
    static final int MAX_SEGMENTS = 64;
    /** UDP payload of one call at most: the IPv4 limit (64 KiB less the IP and UDP headers). */
    static final int MAX_BYTES = 65_507;
    /** Longest header copied into a burst; a longer one is sent on its own. */
    static final int MAX_HEADER = 128;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private final int family;
    private final MemorySegment headers;
    private final MemorySegment iov;
    private final MemorySegment message;
    private final MemorySegment control;
    private final MemorySegment address;
    private InetSocketAddress target;
    private int addressLength;
    private int segmentSize;
    private int count;
    private int bytes;
    private boolean ended;

    GsoBurst(int family) {
        this.family = family;
        Arena arena = Arena.ofAuto();
        headers = arena.allocate((long) MAX_SEGMENTS * MAX_HEADER, 64);
        iov = arena.allocate(Libc.IOVEC.byteSize() * 2 * MAX_SEGMENTS, 8);
        message = arena.allocate(Libc.MSGHDR_SIZE, 8);
        control = arena.allocate(Libc.CMSG_SPACE_SEGMENT, 8);
        address = arena.allocate(Libc.SOCKADDR_SIZE, 8);
        message.set(LONG, Libc.MSG_NAME, address.address());
        message.set(LONG, Libc.MSG_IOV, iov.address());
        control.set(LONG, 0, Libc.CMSG_HEADER + 2); // CMSG_LEN(sizeof(uint16_t))
        control.set(INT, 8, Libc.SOL_UDP);
        control.set(INT, 12, Libc.UDP_SEGMENT);
    }

    /** Whether a datagram of {@code length} bytes can ever join a burst (at least two must fit). */
    static boolean fits(int headerLength, int length) {
        return headerLength <= MAX_HEADER && length <= MAX_BYTES / 2 && length > 0;
    }

    /** Datagrams held. */
    int count() {
        return count;
    }

    /** Bytes held. */
    int bytes() {
        return bytes;
    }

    /** The destination of the datagrams held. */
    InetSocketAddress target() {
        return target;
    }

    /** Whether a datagram of {@code length} bytes to {@code to} can join the datagrams held (some are). */
    boolean joins(InetSocketAddress to, int length) {
        return !ended && count < MAX_SEGMENTS && length <= segmentSize && bytes + length <= MAX_BYTES
                && (to == target || to.equals(target));
    }

    /** Whether no more can join. */
    boolean full() {
        return ended || count == MAX_SEGMENTS || bytes + segmentSize > MAX_BYTES;
    }

    /**
     * Holds a datagram: its header copied, its payload by address (read when the burst is sent).
     * The first datagram sets the destination and the segment size; a shorter one ends the burst.
     */
    void add(InetSocketAddress to, MemorySegment header, int headerLength, long payloadAddress, int payloadLength) {
        int length = headerLength + payloadLength;
        if (count == 0) {
            if (to != target && !to.equals(target)) { // equal addresses of other queue pairs: no new encoding
                addressLength = NativeUdpSocket.encode(address, family, to);
                target = to;
            }
            segmentSize = length;
        }
        long place = (long) count * MAX_HEADER; // an offset, not a slice: nothing allocated per packet
        MemorySegment.copy(header, 0, headers, place, headerLength);
        long at = 32L * count;
        iov.set(LONG, at, headers.address() + place);
        iov.set(LONG, at + 8, headerLength);
        iov.set(LONG, at + 16, payloadAddress);
        iov.set(LONG, at + 24, payloadLength);
        count++;
        bytes += length;
        if (length < segmentSize) {
            ended = true;
        }
    }

    /**
     * The {@code msghdr} of the held datagrams: all of them with the segment size as
     * {@code UDP_SEGMENT} when {@code segmented}, else only datagram {@code index} as a plain one.
     */
    long message(boolean segmented, int index) {
        if (segmented) {
            message.set(LONG, Libc.MSG_IOV, iov.address());
            message.set(LONG, Libc.MSG_IOVLEN, 2L * count);
            control.set(ValueLayout.JAVA_SHORT_UNALIGNED, Libc.CMSG_HEADER, (short) segmentSize);
            message.set(LONG, Libc.MSG_CONTROL, control.address());
            message.set(LONG, Libc.MSG_CONTROLLEN, Libc.CMSG_SPACE_SEGMENT);
        } else {
            message.set(LONG, Libc.MSG_IOV, iov.address() + 32L * index);
            message.set(LONG, Libc.MSG_IOVLEN, 2);
            message.set(LONG, Libc.MSG_CONTROL, 0);
            message.set(LONG, Libc.MSG_CONTROLLEN, 0);
        }
        message.set(INT, Libc.MSG_NAMELEN, addressLength);
        message.set(INT, Libc.MSG_FLAGS, 0);
        return message.address();
    }

    /**
     * Copies the {@code msghdr} of all the held datagrams (with {@code UDP_SEGMENT} when there are
     * several) to {@code vector} at {@code offset}: one entry of a {@code sendmmsg} vector.
     */
    void messageInto(MemorySegment vector, long offset) {
        message(count > 1, 0);
        MemorySegment.copy(message, 0, vector, offset, Libc.MSGHDR_SIZE);
    }

    /** Length of held datagram {@code index}. */
    int length(int index) {
        long at = 32L * index;
        return (int) (iov.get(LONG, at + 8) + iov.get(LONG, at + 24));
    }

    /** Forgets the datagrams held (sent or lost). */
    void clear() {
        count = 0;
        bytes = 0;
        ended = false;
    }
}
