package io.slime4j.wire.udp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.BindException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnsupportedAddressTypeException;

/**
 * A {@link UdpSocket} made and driven with libc calls through the FFM API ({@link Libc}): a
 * non-blocking {@code AF_INET} or dual-stack {@code AF_INET6} datagram socket. What it adds over
 * NIO: {@link #send(MemorySegment, int, MemorySegment, long, int, InetSocketAddress)} gathers a
 * header and a payload from two places in one {@code sendmsg} (the engine sends RDMA payloads
 * straight from registered memory, without copying them into a packet first), and neither
 * direction allocates per datagram (the source address is decoded only when it changes).
 *
 * <p>The descriptor is closed by whoever is last: {@link #close()} when no call is running, else
 * the call that ends after it, so a concurrent call can never reach a descriptor number the process
 * has reused meanwhile.
 */
final class NativeUdpSocket extends UdpSocket {
    private static final ValueLayout.OfShort NET_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final int CLOSED = 0x8000_0000;
    private static final VarHandle STATE;
    private static final VarHandle DESCRIPTOR_CLOSED;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(NativeUdpSocket.class, "state", int.class);
            DESCRIPTOR_CLOSED = MethodHandles.lookup().findVarHandle(NativeUdpSocket.class, "descriptorClosed",
                    boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int fd;
    private final int family;
    /** Calls running, plus {@link #CLOSED} once closed. */
    private volatile int state;
    /** Set by the one {@link #closeDescriptor} that closes it: never twice, whoever else tries. */
    private volatile boolean descriptorClosed;

    // Sending thread only.
    private final MemorySegment sendAddress;
    private final MemorySegment message;
    private final MemorySegment iov;
    private InetSocketAddress lastTarget;
    private int targetLength;
    private MemorySegment copy;
    private final GsoBatch batch;
    /** Whether runs of datagrams leave in one sendmsg with UDP_SEGMENT (cleared if the kernel refuses). */
    private boolean gso;
    /** Why GSO is off, once the kernel refused it on the data path; read by the port to log and report. */
    private volatile String gsoRefused;

    // Receiving thread only.
    private final MemorySegment sourceAddress;
    private final MemorySegment sourceLength;
    private long lastSource0;
    private long lastSource1;
    private long lastSource2;
    private int lastSource3 = -1;
    private InetSocketAddress lastSource;
    private int receivedLength;
    private final MemorySegment receiveMessage;
    private final MemorySegment receiveIov;
    private final MemorySegment receiveControl;
    /** Whether the kernel coalesces received datagrams (UDP_GRO): every receive then reads the segment size. */
    private boolean gro;
    private int segmentSize;
    /** What the socket's offloads are, or why not, as set up at open. */
    private String offloads = "";

    private NativeUdpSocket(int fd, int family) {
        this.fd = fd;
        this.family = family;
        Arena arena = Arena.ofAuto();
        sendAddress = arena.allocate(Libc.SOCKADDR_SIZE, 8);
        message = arena.allocate(Libc.MSGHDR_SIZE, 8);
        iov = arena.allocate(Libc.IOVEC.byteSize() * 2, 8);
        sourceAddress = arena.allocate(Libc.SOCKADDR_SIZE, 8);
        sourceLength = arena.allocate(4, 4);
        receiveMessage = arena.allocate(Libc.MSGHDR_SIZE, 8);
        receiveIov = arena.allocate(Libc.IOVEC.byteSize() * (2 * MAX_SCATTERED + 1), 8);
        receiveControl = arena.allocate(64, 8);
        batch = new GsoBatch(family);
        receiveMessage.set(LONG, Libc.MSG_NAME, sourceAddress.address());
        receiveMessage.set(LONG, Libc.MSG_IOV, receiveIov.address());
        receiveMessage.set(LONG, Libc.MSG_IOVLEN, 3);
        message.set(LONG, Libc.MSG_NAME, sendAddress.address());
        message.set(LONG, Libc.MSG_IOV, iov.address());
        message.set(LONG, Libc.MSG_IOVLEN, 2);
    }

    /**
     * Opens a socket for {@code host}'s family (IPv6: dual-stack, as NIO does), sets its buffer
     * sizes and binds it at {@code host}:{@code port}.
     *
     * @throws IOException naming the call and errno if one fails
     * @throws UnsupportedOperationException if {@link Libc#unavailability()} is not null
     */
    static NativeUdpSocket open(InetAddress host, int port, int receiveBufferSize, int sendBufferSize)
            throws IOException {
        return open(host, port, receiveBufferSize, sendBufferSize, false, false, false);
    }

    /**
     * As {@link #open(InetAddress, int, int, int)}, and: {@code dontFragment} sets
     * {@code IP_MTU_DISCOVER = IP_PMTUDISC_DO} (and its IPv6 twin), so that a datagram larger than
     * the path MTU fails to send instead of being fragmented; {@code gso} enables held bursts sent
     * with {@code UDP_SEGMENT} if the kernel knows the option; {@code gro} asks for coalesced
     * receives ({@code UDP_GRO}). {@link #offloads()} says what was granted.
     */
    static NativeUdpSocket open(InetAddress host, int port, int receiveBufferSize, int sendBufferSize,
                                boolean dontFragment, boolean gso, boolean gro) throws IOException {
        if (Libc.unavailability() != null) {
            throw new UnsupportedOperationException(Libc.unavailability().getMessage(), Libc.unavailability());
        }
        int family = host instanceof Inet6Address ? Libc.AF_INET6 : Libc.AF_INET;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = Libc.captureSegment(arena);
            int fd = (int) Libc.SOCKET.invokeExact(capture, family, Libc.SOCK_DGRAM | Libc.SOCK_NONBLOCK
                    | Libc.SOCK_CLOEXEC, 0);
            if (fd < 0) {
                throw failure("socket", capture);
            }
            NativeUdpSocket socket = new NativeUdpSocket(fd, family);
            try {
                if (family == Libc.AF_INET6) {
                    socket.setIntOption(arena, Libc.IPPROTO_IPV6, Libc.IPV6_V6ONLY, 0, "IPV6_V6ONLY");
                }
                socket.setIntOption(arena, Libc.SOL_SOCKET, Libc.SO_RCVBUF, receiveBufferSize, "SO_RCVBUF");
                socket.setIntOption(arena, Libc.SOL_SOCKET, Libc.SO_SNDBUF, sendBufferSize, "SO_SNDBUF");
                if (dontFragment) {
                    if (family == Libc.AF_INET6) {
                        socket.setIntOption(arena, Libc.IPPROTO_IPV6, Libc.IPV6_MTU_DISCOVER, Libc.IPV6_PMTUDISC_DO,
                                "IPV6_MTU_DISCOVER");
                        socket.trySetIntOption(arena, Libc.IPPROTO_IP, Libc.IP_MTU_DISCOVER, Libc.IP_PMTUDISC_DO);
                    } else {
                        socket.setIntOption(arena, Libc.IPPROTO_IP, Libc.IP_MTU_DISCOVER, Libc.IP_PMTUDISC_DO,
                                "IP_MTU_DISCOVER");
                    }
                }
                socket.setUpOffloads(arena, gso, gro);
                MemorySegment at = arena.allocate(Libc.SOCKADDR_SIZE, 8);
                int length = encode(at, family, new InetSocketAddress(host, port));
                if ((int) Libc.BIND.invokeExact(capture, fd, at, length) != 0) {
                    throw failure("bind", capture);
                }
                return socket;
            } catch (Throwable e) {
                socket.close();
                throw e;
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private void setIntOption(Arena arena, int level, int name, int value, String what) throws Throwable {
        MemorySegment v = arena.allocate(ValueLayout.JAVA_INT);
        v.set(ValueLayout.JAVA_INT, 0, value);
        MemorySegment capture = Libc.captureSegment(arena);
        if ((int) Libc.SETSOCKOPT.invokeExact(capture, fd, level, name, v, 4) != 0) {
            throw failure("setsockopt " + what, capture);
        }
    }

    /** Sets an option; returns 0 or the errno of the refusal. */
    private int trySetIntOption(Arena arena, int level, int name, int value) throws Throwable {
        MemorySegment v = arena.allocate(ValueLayout.JAVA_INT);
        v.set(ValueLayout.JAVA_INT, 0, value);
        MemorySegment capture = Libc.captureSegment(arena);
        return (int) Libc.SETSOCKOPT.invokeExact(capture, fd, level, name, v, 4) == 0 ? 0 : Libc.errno(capture);
    }

    /**
     * GSO: the kernel knows {@code UDP_SEGMENT} if it can be read (Linux 4.18+); whether it takes a
     * burst shows on the first one (a refusal falls back, see {@link #flushHeld()}). GRO: set
     * {@code UDP_GRO} (Linux 5.0+).
     */
    private void setUpOffloads(Arena arena, boolean wantGso, boolean wantGro) throws Throwable {
        StringBuilder note = new StringBuilder();
        if (wantGso) {
            MemorySegment v = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment len = arena.allocate(ValueLayout.JAVA_INT);
            len.set(ValueLayout.JAVA_INT, 0, 4);
            MemorySegment capture = Libc.captureSegment(arena);
            gso = (int) Libc.GETSOCKOPT.invokeExact(capture, fd, Libc.SOL_UDP, Libc.UDP_SEGMENT, v, len) == 0;
            note.append(gso ? "gso on" : "gso off (the kernel has no UDP_SEGMENT: errno " + Libc.errno(capture)
                    + "; Linux 4.18+)");
        } else {
            note.append("gso off (configured)");
        }
        if (wantGro) {
            int errno = trySetIntOption(arena, Libc.SOL_UDP, Libc.UDP_GRO, 1);
            gro = errno == 0;
            note.append(gro ? ", gro on" : ", gro off (the kernel refused UDP_GRO: errno " + errno + "; Linux 5.0+)");
        } else {
            note.append(", gro off (configured)");
        }
        offloads = note.toString();
    }

    /** The socket's {@code IP_MTU_DISCOVER} (IPv6: {@code IPV6_MTU_DISCOVER}) mode; 2 is "don't fragment". */
    int mtuDiscover() throws IOException {
        return family == Libc.AF_INET6 ? intOption(Libc.IPPROTO_IPV6, Libc.IPV6_MTU_DISCOVER, "IPV6_MTU_DISCOVER")
                : intOption(Libc.IPPROTO_IP, Libc.IP_MTU_DISCOVER, "IP_MTU_DISCOVER");
    }

    /** What the socket's offloads are: e.g. {@code "gso on, gro on"}, or why one is off. */
    String offloads() {
        String refused = gsoRefused;
        return refused == null ? offloads : offloads.replace("gso on", "gso off (" + refused + ")");
    }

    /** Why the kernel refused a GSO burst on the data path, or null. */
    String gsoRefused() {
        return gsoRefused;
    }

    /** Whether a receive can bring several datagrams coalesced ({@code UDP_GRO} granted). */
    @Override
    boolean coalesces() {
        return gro;
    }

    /** Segment size of the last receive's coalesced datagrams, or 0 if it brought one datagram. */
    @Override
    int segmentSize() {
        return segmentSize;
    }

    private int intOption(int level, int name, String what) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment len = arena.allocate(ValueLayout.JAVA_INT);
            len.set(ValueLayout.JAVA_INT, 0, 4);
            MemorySegment capture = Libc.captureSegment(arena);
            if (!acquire()) {
                throw new ClosedChannelException();
            }
            try {
                if ((int) Libc.GETSOCKOPT.invokeExact(capture, fd, level, name, v, len) != 0) {
                    throw failure("getsockopt " + what, capture);
                }
            } finally {
                release();
            }
            return v.get(ValueLayout.JAVA_INT, 0);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static IOException failure(String call, MemorySegment capture) {
        return failure(call, Libc.errno(capture));
    }

    private static IOException failure(String call, int errno) {
        String text = switch (errno) {
            case 13 -> "permission denied";
            case 22 -> "invalid argument";
            case 24 -> "too many open files";
            case 90 -> "message too long: the datagram is larger than the path MTU allows (choose a smaller "
                    + "QpConfig.mtu, or allow fragmentation: slime4j.udp.fragmentation=true)";
            case 97 -> "address family not supported";
            case 98 -> "Address already in use";
            case 99 -> "Cannot assign requested address";
            default -> "errno " + errno;
        };
        String message = call + " failed: " + text + " (errno " + errno + ")";
        return call.equals("bind") ? new BindException(message) : new IOException(message);
    }

    /** Writes {@code a} as a sockaddr of {@code family} into {@code into}; returns its length. */
    static int encode(MemorySegment into, int family, InetSocketAddress a) {
        InetAddress host = a.getAddress();
        if (host == null) {
            throw new UnsupportedAddressTypeException();
        }
        byte[] raw = host.getAddress();
        into.fill((byte) 0);
        into.set(ValueLayout.JAVA_SHORT, 0, (short) family);
        into.set(NET_SHORT, 2, (short) a.getPort());
        if (family == Libc.AF_INET) {
            if (raw.length != 4) {
                throw new UnsupportedAddressTypeException();
            }
            MemorySegment.copy(raw, 0, into, ValueLayout.JAVA_BYTE, 4, 4);
            return 16;
        }
        if (raw.length == 4) { // IPv4-mapped on a dual-stack socket
            into.set(ValueLayout.JAVA_SHORT, 18, (short) -1);
            MemorySegment.copy(raw, 0, into, ValueLayout.JAVA_BYTE, 20, 4);
        } else {
            MemorySegment.copy(raw, 0, into, ValueLayout.JAVA_BYTE, 8, 16);
            into.set(INT, 24, ((Inet6Address) host).getScopeId());
        }
        return 28;
    }

    private boolean acquire() {
        if ((int) STATE.getAndAdd(this, 1) < 0) {
            release();
            return false;
        }
        return true;
    }

    private void release() {
        if ((int) STATE.getAndAdd(this, -1) == (CLOSED | 1)) {
            closeDescriptor(); // the last call after close()
        }
    }

    @Override
    boolean send(MemorySegment packet, int length, InetSocketAddress target) throws IOException {
        if (!packet.isNative()) {
            if (copy == null || copy.byteSize() < length) {
                copy = Arena.ofAuto().allocate(Math.max(length, 1 << 16), 8);
            }
            MemorySegment.copy(packet, 0, copy, 0, length);
            packet = copy;
        }
        return sendRaw(packet.address(), length, 0, 0, target);
    }

    @Override
    boolean send(MemorySegment header, int headerLength, MemorySegment payload, long payloadOffset,
                 int payloadLength, InetSocketAddress target) throws IOException {
        if (!header.isNative() || !payload.isNative()) {
            return super.send(header, headerLength, payload, payloadOffset, payloadLength, target);
        }
        if (payloadOffset < 0 || payloadLength < 0 || payloadOffset > payload.byteSize() - payloadLength
                || headerLength < 0 || headerLength > header.byteSize()) {
            throw new IndexOutOfBoundsException("payload " + payloadOffset + "+" + payloadLength + " of "
                    + payload.byteSize() + ", header " + headerLength + " of " + header.byteSize());
        }
        if (!payload.scope().isAlive()) {
            throw new IllegalStateException("payload memory already closed");
        }
        return sendRaw(header.address(), headerLength, payload.address() + payloadOffset, payloadLength, target);
    }

    @Override
    boolean gathers() {
        return true;
    }

    @Override
    boolean holds() {
        return gso;
    }

    /**
     * Holds a datagram for the burst being gathered (sending the burst first if it cannot join),
     * or sends it at once if it cannot be part of any. Counts what it sends, refuses or loses.
     */
    @Override
    void hold(MemorySegment header, int headerLength, MemorySegment payload, long payloadOffset, int payloadLength,
              InetSocketAddress target) throws IOException {
        if (!header.isNative() || !payload.isNative() || !gso || !GsoBurst.fits(headerLength,
                headerLength + payloadLength)) {
            flushHeld();
            super.hold(header, headerLength, payload, payloadOffset, payloadLength, target);
            return;
        }
        if (payloadOffset < 0 || payloadLength < 0 || payloadOffset > payload.byteSize() - payloadLength
                || headerLength < 0 || headerLength > header.byteSize()) {
            throw new IndexOutOfBoundsException("payload " + payloadOffset + "+" + payloadLength + " of "
                    + payload.byteSize() + ", header " + headerLength + " of " + header.byteSize());
        }
        if (!payload.scope().isAlive()) {
            throw new IllegalStateException("payload memory already closed");
        }
        GsoBurst burst = batch.current();
        if (burst.count() > 0 && !burst.joins(target, headerLength + payloadLength)) {
            burst = nextRun();
        }
        burst.add(target, header, headerLength, payload.address() + payloadOffset, payloadLength);
        if (burst.full() && !batch.advance()) {
            flushHeld();
        }
    }

    /** The next run to fill: a new one of the batch, or, when all are taken, the first after the batch left. */
    private GsoBurst nextRun() throws IOException {
        if (!batch.advance()) {
            flushHeld();
        }
        return batch.current();
    }

    /**
     * Sends the held runs: several in one {@code sendmmsg}, one in a {@code sendmsg} (with
     * {@code UDP_SEGMENT}, or a plain one for a single datagram). When {@code sendmmsg} fails on a
     * run, that run and the ones after it go one {@code sendmsg} each, as below. A full buffer loses
     * the run (counted; the engine resends). A kernel that refuses the segmentation ({@code EINVAL},
     * {@code EIO}, {@code EOPNOTSUPP}) gets the datagrams one by one; if those leave, GSO is switched
     * off for this socket and {@link #gsoRefused()} says why.
     */
    @Override
    void flushHeld() throws IOException {
        int runs = batch.runs();
        if (runs == 0) {
            return;
        }
        int from = 0;
        try {
            while (runs - from > 1) {
                int n = sendBatch(from, runs - from);
                if (n <= 0) {
                    break; // the run at from failed: it and the rest go one call each, with their own errors
                }
                for (int i = from; i < from + n; i++) {
                    GsoBurst b = batch.run(i);
                    sent(b.count(), b.bytes(), b.count() > 1);
                }
                heldCounters.increment(UdpCounters.GSO_BATCHES);
                from += n;
            }
            // one call each: a run that fails (counted by flushRun) does not keep the later runs,
            // which may be for other peers, from leaving; the first failure is rethrown after them
            IOException firstIo = null;
            RuntimeException firstRuntime = null;
            for (; from < runs; from++) {
                try {
                    flushRun(batch.run(from));
                } catch (ClosedChannelException e) {
                    throw e;
                } catch (IOException e) {
                    firstIo = firstIo == null ? e : firstIo;
                } catch (RuntimeException e) {
                    firstRuntime = firstRuntime == null ? e : firstRuntime;
                }
            }
            if (firstIo != null) {
                throw firstIo;
            }
            if (firstRuntime != null) {
                throw firstRuntime;
            }
        } catch (IOException | RuntimeException e) {
            for (int i = from + 1; i < runs; i++) { // a closed socket, or sendmmsg itself threw
                heldCounters.add(UdpCounters.SEND_ERRORS, batch.run(i).count());
            }
            throw e;
        } finally {
            batch.clear();
        }
    }

    /** One {@code sendmmsg} of {@code n} held runs from {@code from}: how many left, or -1. */
    private int sendBatch(int from, int n) throws IOException {
        long vector = batch.vector(from, n);
        if (!acquire()) {
            throw new ClosedChannelException();
        }
        try {
            return (int) Libc.SENDMMSG.invokeExact(fd, vector, n, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        } finally {
            release();
        }
    }

    private void flushRun(GsoBurst burst) throws IOException {
        int count = burst.count();
        long n = sendHeld(burst, count > 1, 0);
        if (n >= 0) {
            sent(count, burst.bytes(), count > 1);
            return;
        }
        int errno = Libc.errno();
        if (errno == Libc.EAGAIN || errno == Libc.ENOBUFS || errno == Libc.EINTR) {
            heldCounters.add(UdpCounters.SEND_BUFFER_FULL, count);
            return;
        }
        if (count > 1 && (errno == Libc.EINVAL || errno == Libc.EIO || errno == Libc.EOPNOTSUPP)) {
            sendOneByOne(burst, count, errno);
            return;
        }
        heldCounters.add(UdpCounters.SEND_ERRORS, count);
        throw failure("sendmsg", errno);
    }

    private void sendOneByOne(GsoBurst burst, int count, int gsoErrno) throws IOException {
        int sent = 0;
        for (int i = 0; i < count; i++) {
            long n = sendHeld(burst, false, i);
            if (n >= 0) {
                sent++;
                sent(1, burst.length(i), false);
                continue;
            }
            int errno = Libc.errno();
            if (errno == Libc.EAGAIN || errno == Libc.ENOBUFS || errno == Libc.EINTR) {
                heldCounters.add(UdpCounters.SEND_BUFFER_FULL, count - i);
                return;
            }
            heldCounters.add(UdpCounters.SEND_ERRORS, count - i);
            throw failure("sendmsg", errno);
        }
        if (sent == count) {
            gso = false;
            gsoRefused = "the kernel refused UDP_SEGMENT on this route: errno " + gsoErrno;
        }
    }

    private void sent(int datagrams, int bytes, boolean segmented) {
        heldCounters.add(UdpCounters.DATAGRAMS_SENT, datagrams);
        heldCounters.add(UdpCounters.BYTES_SENT, bytes);
        if (segmented) {
            heldCounters.increment(UdpCounters.GSO_SENDS);
        }
    }

    private long sendHeld(GsoBurst burst, boolean segmented, int index) throws IOException {
        long message = burst.message(segmented, index);
        if (!acquire()) {
            throw new ClosedChannelException();
        }
        try {
            return (long) Libc.SENDMSG.invokeExact(fd, message, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        } finally {
            release();
        }
    }

    private boolean sendRaw(long first, int firstLength, long second, int secondLength, InetSocketAddress target)
            throws IOException {
        if (target != lastTarget && !target.equals(lastTarget)) { // equal addresses of other queue pairs: kept
            targetLength = encode(sendAddress, family, target);
            lastTarget = target;
        }
        if (!acquire()) {
            throw new ClosedChannelException();
        }
        long n;
        try {
            if (secondLength == 0) {
                n = (long) Libc.SENDTO.invokeExact(fd, first, (long) firstLength, 0, sendAddress.address(),
                        targetLength);
            } else {
                iov.set(LONG, 0, first);
                iov.set(LONG, 8, firstLength);
                iov.set(LONG, 16, second);
                iov.set(LONG, 24, secondLength);
                message.set(INT, Libc.MSG_NAMELEN, targetLength);
                n = (long) Libc.SENDMSG.invokeExact(fd, message.address(), 0);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        } finally {
            release();
        }
        if (n >= 0) {
            return true;
        }
        int errno = Libc.errno();
        if (errno == Libc.EAGAIN || errno == Libc.ENOBUFS || errno == Libc.EINTR) {
            return false;
        }
        throw failure(secondLength == 0 ? "sendto" : "sendmsg", errno);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    @Override
    InetSocketAddress receive(MemorySegment into) throws IOException {
        return recvfrom(into, into.byteSize(), Libc.MSG_TRUNC);
    }

    /**
     * One {@code recvfrom} of up to {@code length} bytes into {@code into}, with {@code flags}; on a
     * GRO socket a {@code recvmsg} instead, whose control message tells the segment size.
     */
    private InetSocketAddress recvfrom(MemorySegment into, long length, int flags) throws IOException {
        if (gro) {
            receiveIov.set(LONG, 0, into.address());
            receiveIov.set(LONG, 8, length);
            receiveIov.set(LONG, 16, 0);
            receiveIov.set(LONG, 24, 0);
            receiveIov.set(LONG, 32, 0);
            receiveIov.set(LONG, 40, 0);
            return recvmsg(flags);
        }
        segmentSize = 0;
        if (!acquire()) {
            throw new ClosedChannelException();
        }
        long n;
        try {
            sourceLength.set(ValueLayout.JAVA_INT, 0, Libc.SOCKADDR_SIZE);
            n = (long) Libc.RECVFROM.invokeExact(fd, into.address(), length, flags, sourceAddress.address(),
                    sourceLength.address());
        } catch (Throwable t) {
            throw rethrow(t);
        } finally {
            release();
        }
        return received(n, "recvfrom");
    }

    @Override
    boolean splits() {
        return true;
    }

    @Override
    InetSocketAddress discard(MemorySegment into, int headerLength) throws IOException {
        return recvfrom(into, headerLength, Libc.MSG_TRUNC); // the kernel drops what does not fit
    }

    @Override
    InetSocketAddress peek(MemorySegment into, int headerLength) throws IOException {
        if (headerLength < 0 || headerLength > into.byteSize()) {
            throw new IndexOutOfBoundsException("header " + headerLength + " of " + into.byteSize());
        }
        return recvfrom(into, headerLength, Libc.MSG_PEEK | Libc.MSG_TRUNC);
    }

    @Override
    InetSocketAddress receiveSplit(MemorySegment header, int headerLength, MemorySegment target, long offset,
                                   int payloadLength) throws IOException {
        if (headerLength < 0 || headerLength > header.byteSize() || payloadLength < 0 || offset < 0
                || offset > target.byteSize() - payloadLength) {
            throw new IndexOutOfBoundsException("header " + headerLength + " of " + header.byteSize() + ", payload "
                    + offset + "+" + payloadLength + " of " + target.byteSize());
        }
        if (!header.isNative() || !target.isNative() || !target.scope().isAlive()) {
            throw new IllegalStateException("split receive needs live native segments");
        }
        receiveIov.set(LONG, 0, header.address());
        receiveIov.set(LONG, 8, headerLength);
        receiveIov.set(LONG, 16, target.address() + offset);
        receiveIov.set(LONG, 24, payloadLength);
        long rest = header.byteSize() - headerLength - payloadLength;
        receiveIov.set(LONG, 32, rest > 0 ? header.address() + headerLength + payloadLength : 0);
        receiveIov.set(LONG, 40, Math.max(0, rest));
        return recvmsg(Libc.MSG_TRUNC);
    }

    /**
     * Receives a coalesced run of {@code count} datagrams of {@code stride} bytes each (the last
     * one's payload {@code lastPayload} bytes) with each datagram's header at {@code i * stride} in
     * {@code buffer}, where a whole receive would put it, and the payloads back to back in
     * {@code target} from {@code offset}: one {@code recvmsg} with two iovecs per datagram. Anything
     * beyond goes behind the last header in {@code buffer}.
     */
    @Override
    InetSocketAddress receiveScattered(MemorySegment buffer, int headerLength, int stride, int count, int lastPayload,
                                       MemorySegment target, long offset) throws IOException {
        int payload = stride - headerLength;
        long payloads = (long) (count - 1) * payload + lastPayload;
        if (count < 1 || count > MAX_SCATTERED || headerLength < 0 || payload <= 0 || lastPayload <= 0
                || lastPayload > payload || (long) (count - 1) * stride + headerLength > buffer.byteSize() || offset < 0
                || offset > target.byteSize() - payloads) {
            throw new IndexOutOfBoundsException("run of " + count + " x " + stride + " (header " + headerLength
                    + ", last payload " + lastPayload + ") into " + buffer.byteSize() + ", payloads " + offset + "+"
                    + payloads + " of " + target.byteSize());
        }
        if (!buffer.isNative() || !target.isNative() || !target.scope().isAlive()) {
            throw new IllegalStateException("split receive needs live native segments");
        }
        long header = buffer.address();
        long place = target.address() + offset;
        long at = 0;
        for (int i = 0; i < count; i++) {
            receiveIov.set(LONG, at, header + (long) i * stride);
            receiveIov.set(LONG, at + 8, headerLength);
            receiveIov.set(LONG, at + 16, place + (long) i * payload);
            receiveIov.set(LONG, at + 24, i == count - 1 ? lastPayload : payload);
            at += 32;
        }
        long tail = (long) (count - 1) * stride + headerLength;
        long rest = buffer.byteSize() - tail;
        receiveIov.set(LONG, at, rest > 0 ? header + tail : 0);
        receiveIov.set(LONG, at + 8, Math.max(0, rest));
        receiveMessage.set(LONG, Libc.MSG_IOVLEN, 2L * count + 1);
        try {
            return recvmsg(Libc.MSG_TRUNC);
        } finally {
            receiveMessage.set(LONG, Libc.MSG_IOVLEN, 3);
        }
    }

    /** One {@code recvmsg} into {@link #receiveIov}; on a GRO socket reads the segment size from the control message. */
    private InetSocketAddress recvmsg(int flags) throws IOException {
        receiveMessage.set(INT, Libc.MSG_NAMELEN, Libc.SOCKADDR_SIZE);
        if (gro) {
            receiveMessage.set(LONG, Libc.MSG_CONTROL, receiveControl.address());
            receiveMessage.set(LONG, Libc.MSG_CONTROLLEN, receiveControl.byteSize());
        }
        if (!acquire()) {
            throw new ClosedChannelException();
        }
        long n;
        try {
            n = (long) Libc.RECVMSG.invokeExact(fd, receiveMessage.address(), flags);
        } catch (Throwable t) {
            throw rethrow(t);
        } finally {
            release();
        }
        segmentSize = n > 0 && gro ? groSegmentSize(n) : 0;
        return received(n, "recvmsg");
    }

    /**
     * The UDP_GRO segment size from the control messages of the last {@code recvmsg}, or 0 when
     * there is none or it is not smaller than the datagram ({@code n} bytes): one datagram.
     */
    private int groSegmentSize(long n) {
        long controlLength = receiveMessage.get(LONG, Libc.MSG_CONTROLLEN);
        long at = 0;
        while (at + Libc.CMSG_HEADER <= controlLength && at + Libc.CMSG_HEADER <= receiveControl.byteSize()) {
            long length = receiveControl.get(LONG, at);
            if (length < Libc.CMSG_HEADER) {
                return 0;
            }
            if (receiveControl.get(INT, at + 8) == Libc.SOL_UDP && receiveControl.get(INT, at + 12) == Libc.UDP_GRO
                    && at + Libc.CMSG_HEADER + 4 <= receiveControl.byteSize()) {
                int size = receiveControl.get(INT, at + Libc.CMSG_HEADER);
                return size > 0 && size < n ? size : 0;
            }
            at += (length + 7) & ~7L;
        }
        return 0;
    }

    /** The source of the datagram just received, decoded only when it differs from the last one. */
    private InetSocketAddress source() throws IOException {
        long s0 = sourceAddress.get(LONG, 0);
        long s1 = 0;
        long s2 = 0;
        int s3 = 0;
        boolean v6 = (short) s0 == Libc.AF_INET6;
        if (v6) {
            s1 = sourceAddress.get(LONG, 8);
            s2 = sourceAddress.get(LONG, 16);
            s3 = sourceAddress.get(INT, 24);
        }
        if (lastSource != null && s0 == lastSource0 && s1 == lastSource1 && s2 == lastSource2 && s3 == lastSource3) {
            return lastSource;
        }
        int port = sourceAddress.get(NET_SHORT, 2) & 0xFFFF;
        byte[] raw = sourceAddress.asSlice(v6 ? 8 : 4, v6 ? 16 : 4).toArray(ValueLayout.JAVA_BYTE);
        InetAddress host;
        try {
            // an IPv4-mapped address comes back as an Inet4Address, as NIO reports it
            host = v6 && !isV4Mapped(raw) && s3 != 0 ? Inet6Address.getByAddress(null, raw, s3)
                    : InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            throw new IOException("recvfrom returned a malformed source address", e);
        }
        lastSource0 = s0;
        lastSource1 = s1;
        lastSource2 = s2;
        lastSource3 = s3;
        lastSource = new InetSocketAddress(host, port);
        return lastSource;
    }

    private static boolean isV4Mapped(byte[] raw) {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return raw[10] == (byte) 0xFF && raw[11] == (byte) 0xFF;
    }

    @Override
    int receivedLength() {
        return receivedLength;
    }

    @Override
    int localPort() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment at = arena.allocate(Libc.SOCKADDR_SIZE, 8);
            MemorySegment len = arena.allocate(ValueLayout.JAVA_INT);
            len.set(ValueLayout.JAVA_INT, 0, Libc.SOCKADDR_SIZE);
            MemorySegment capture = Libc.captureSegment(arena);
            if (!acquire()) {
                throw new ClosedChannelException();
            }
            try {
                if ((int) Libc.GETSOCKNAME.invokeExact(capture, fd, at, len) != 0) {
                    throw failure("getsockname", capture);
                }
            } finally {
                release();
            }
            return at.get(NET_SHORT, 2) & 0xFFFF;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    int receiveBufferSize() throws IOException {
        return intOption(Libc.SOL_SOCKET, Libc.SO_RCVBUF, "SO_RCVBUF");
    }

    @Override
    int sendBufferSize() throws IOException {
        return intOption(Libc.SOL_SOCKET, Libc.SO_SNDBUF, "SO_SNDBUF");
    }

    @Override
    void close() {
        int s;
        do {
            s = state;
            if (s < 0) {
                return;
            }
        } while (!STATE.compareAndSet(this, s, s | CLOSED));
        if (s == 0) {
            closeDescriptor();
        }
    }

    private void closeDescriptor() {
        if (!DESCRIPTOR_CLOSED.compareAndSet(this, false, true)) {
            return; // e.g. a call that found the socket closed: the number may belong to another socket now
        }
        try (Arena arena = Arena.ofConfined()) {
            int ignored = (int) Libc.CLOSE.invokeExact(Libc.captureSegment(arena), fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * The end of a receive call that returned {@code n}: null when nothing was waiting (or a signal
     * interrupted it), else the source, with {@link #receivedLength} set to the datagram's real
     * length (MSG_TRUNC).
     */
    private InetSocketAddress received(long n, String call) throws IOException {
        if (n < 0) {
            int errno = Libc.errno();
            if (errno == Libc.EAGAIN || errno == Libc.EINTR) {
                return null;
            }
            throw failure(call, errno);
        }
        receivedLength = (int) Math.min(n, Integer.MAX_VALUE);
        return source();
    }

    @Override
    int pollFd() {
        return fd;
    }
}
