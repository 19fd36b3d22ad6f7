package io.slime4j.wire.udp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * One bound, non-blocking datagram socket of a rail: the data path a {@link UdpPort} needs, over
 * NIO ({@link NioUdpSocket}) or over libc calls ({@link NativeUdpSocket}). One thread sends and one
 * receives (may be the same); {@link #close()} from any thread.
 */
abstract class UdpSocket {

    /**
     * Sends the first {@code length} bytes of {@code packet} to {@code target}.
     *
     * @return false if the kernel's send buffer is full (nothing sent)
     * @throws IOException on any other failure, including a closed socket
     *                     ({@link java.nio.channels.ClosedChannelException})
     */
    abstract boolean send(MemorySegment packet, int length, InetSocketAddress target) throws IOException;

    /**
     * Sends one datagram of {@code headerLength} bytes of {@code header} followed by
     * {@code payloadLength} bytes of {@code payload} from {@code payloadOffset}. This implementation
     * copies the payload behind the header (which must have room) and sends that; the native socket
     * gathers both parts in one {@code sendmsg} instead.
     *
     * @return false if the kernel's send buffer is full (nothing sent)
     * @throws IOException as {@link #send(MemorySegment, int, InetSocketAddress)}
     */
    boolean send(MemorySegment header, int headerLength, MemorySegment payload, long payloadOffset,
                 int payloadLength, InetSocketAddress target) throws IOException {
        MemorySegment.copy(payload, payloadOffset, header, headerLength, payloadLength);
        return send(header, headerLength + payloadLength, target);
    }

    /** Whether {@link #send(MemorySegment, int, MemorySegment, long, int, InetSocketAddress)} avoids the copy. */
    boolean gathers() {
        return false;
    }

    /** Whether {@link #hold} holds datagrams back for a GSO burst (the native socket, where the kernel has it). */
    boolean holds() {
        return false;
    }

    /** Where {@link #hold} and {@link #flushHeld} count what they send, refuse and lose. */
    void countInto(UdpCounters counters) {
        heldCounters = counters;
    }

    /** See {@link #countInto}; sending thread only. */
    UdpCounters heldCounters = new UdpCounters();

    /**
     * Sends a datagram as {@link #send(MemorySegment, int, MemorySegment, long, int, InetSocketAddress)},
     * or holds it for a burst that {@link #flushHeld()} sends; counts the outcome itself (into
     * {@link #countInto}'s counters) because a held datagram's outcome is known only later. This
     * implementation sends at once.
     *
     * @throws IOException on a failure other than a full buffer (counted as a send error first)
     */
    void hold(MemorySegment header, int headerLength, MemorySegment payload, long payloadOffset, int payloadLength,
              InetSocketAddress target) throws IOException {
        UdpCounters c = heldCounters;
        boolean sent;
        try {
            sent = send(header, headerLength, payload, payloadOffset, payloadLength, target);
        } catch (java.nio.channels.ClosedChannelException e) {
            throw e;
        } catch (IOException e) {
            c.increment(UdpCounters.SEND_ERRORS);
            throw e;
        }
        if (sent) {
            c.increment(UdpCounters.DATAGRAMS_SENT);
            c.add(UdpCounters.BYTES_SENT, headerLength + payloadLength);
        } else {
            c.increment(UdpCounters.SEND_BUFFER_FULL);
        }
    }

    /** Sends the datagrams {@link #hold} holds, if any. */
    void flushHeld() throws IOException {
    }

    /** Whether a receive can bring several datagrams coalesced (UDP GRO). */
    boolean coalesces() {
        return false;
    }

    /**
     * After a receive on a socket that {@link #coalesces()}: the size of each datagram in what was
     * received (the last may be shorter), or 0 if it was one datagram.
     */
    int segmentSize() {
        return 0;
    }

    /**
     * Receives one datagram into {@code into} (at most its size; one byte more than the largest
     * datagram accepted, so that a larger one shows as such).
     *
     * @return the source, or null if no datagram is waiting; the datagram's length (at least the
     *         bytes received) is then {@link #receivedLength()}
     * @throws IOException on a failure, including a closed socket
     */
    abstract InetSocketAddress receive(MemorySegment into) throws IOException;

    /** Whether {@link #peek} and {@link #receiveSplit} work (the native socket). */
    boolean splits() {
        return false;
    }

    /**
     * Copies the first {@code headerLength} bytes of the next datagram into {@code into} without
     * taking it off the queue.
     *
     * @return its source, or null if none is waiting; its whole length is then
     *         {@link #receivedLength()}
     * @throws IOException on a failure, including a closed socket
     */
    InetSocketAddress peek(MemorySegment into, int headerLength) throws IOException {
        throw new UnsupportedOperationException("this socket cannot peek");
    }

    /**
     * Takes the next datagram off the queue: its first {@code headerLength} bytes into
     * {@code header}, the next {@code payloadLength} bytes at most to {@code target} at
     * {@code offset}, and whatever follows into {@code header} again, from
     * {@code headerLength + payloadLength} to its end (so that a datagram longer than expected is
     * still received whole, in two parts).
     *
     * @return its source, or null if none was waiting; its whole length (even if it did not fit) is
     *         then {@link #receivedLength()}
     * @throws IOException on a failure, including a closed socket
     */
    InetSocketAddress receiveSplit(MemorySegment header, int headerLength, MemorySegment target, long offset,
                                   int payloadLength) throws IOException {
        throw new UnsupportedOperationException("this socket cannot split datagrams");
    }

    /**
     * Takes the next datagram off the queue reading only its first {@code headerLength} bytes into
     * {@code into}; the kernel drops the rest unread (a coalesced receive whole).
     *
     * @return its source, or null if none was waiting; its whole length is then {@link #receivedLength()}
     * @throws IOException on a failure, including a closed socket
     */
    InetSocketAddress discard(MemorySegment into, int headerLength) throws IOException {
        throw new UnsupportedOperationException("this socket cannot split datagrams");
    }

    /** The most datagrams {@link #receiveScattered} takes in one receive (the kernel's GRO coalesces at most 64). */
    static final int MAX_SCATTERED = 64;

    /**
     * Receives the next datagram, a coalesced run of {@code count} datagrams of {@code stride}
     * bytes (the last one's payload {@code lastPayload} bytes), split: the header of datagram
     * {@code i} into {@code buffer} at {@code i * stride}, its payload into {@code target} at
     * {@code offset + i * (stride - headerLength)}, so that the payloads lie back to back.
     *
     * @return its source, or null if none was waiting; its whole length (all datagrams) is then
     *         {@link #receivedLength()}
     * @throws IOException on a failure, including a closed socket
     */
    InetSocketAddress receiveScattered(MemorySegment buffer, int headerLength, int stride, int count, int lastPayload,
                                       MemorySegment target, long offset) throws IOException {
        throw new UnsupportedOperationException("this socket cannot split datagrams");
    }

    /** Length of the datagram the last {@link #receive} returned. */
    abstract int receivedLength();

    /** The bound port. */
    abstract int localPort() throws IOException;

    /** SO_RCVBUF as the kernel reports it. */
    abstract int receiveBufferSize() throws IOException;

    /** SO_SNDBUF as the kernel reports it. */
    abstract int sendBufferSize() throws IOException;

    /** The socket's file descriptor for epoll, or -1 when it has none to offer (NIO). */
    int pollFd() {
        return -1;
    }

    /** The channel for a selector, or null when there is none (native). */
    java.nio.channels.SelectableChannel selectable() {
        return null;
    }

    /** Closes the socket; idempotent; a concurrent send or receive fails or finishes first. */
    abstract void close() throws IOException;
}
