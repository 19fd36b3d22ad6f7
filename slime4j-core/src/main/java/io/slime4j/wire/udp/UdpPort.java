package io.slime4j.wire.udp;

import io.slime4j.wire.PacketHandler;
import io.slime4j.wire.PlacingPacketHandler;
import io.slime4j.wire.WireAddress;
import io.slime4j.wire.WirePort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One rail of a {@link UdpWire}: a data channel at the bound port and a priority channel at a
 * second port (both non-blocking sockets), or only the data channel for a single-socket rail. See
 * {@link io.slime4j.wire.udp} for how peers find the priority channel and how sources are
 * recognised. The sockets are NIO {@link DatagramChannel}s or, with the native backend
 * ({@link UdpConfig#backend()}), sockets driven by libc calls through the FFM API; the port's
 * behaviour is the same on both.
 *
 * <p>Sending writes the datagram straight from the caller's segment when it is native (the
 * engine's transmit buffer), else through a copy into a direct buffer; a full kernel buffer makes
 * {@code send} return false at once. The gathering {@code send} of a header and a payload is one
 * {@code sendmsg} on the native backend and a copy of the payload behind the header on NIO.
 * Receiving reads into one reused buffer whose segment is handed to the handler. Neither
 * allocates per datagram beyond what {@link DatagramChannel#receive} itself does on NIO (the
 * source address; the source's {@link UdpAddress} is cached); the native backend allocates
 * nothing per datagram.
 *
 * <p>Threading as in {@link io.slime4j.wire.udp}: one sending thread, one receiving thread (may be
 * the same), {@link #close()} and {@link #resolve} from any thread.
 */
public final class UdpPort implements WirePort {
    private static final Logger LOG = LoggerFactory.getLogger(UdpPort.class);
    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(UdpPort.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final UdpWire wire;
    private final UdpSocket dataChannel;
    private final UdpSocket priorityChannel;
    private final UdpAddress boundAddress;
    private final UdpAddress localAddress;
    private final int maxDatagramSize;
    private final int pathMtu;
    private final int pathPacketSize;
    private final int receiveBufferSize;
    private final int sendBufferSize;
    private final ConcurrentHashMap<InetSocketAddress, UdpAddress> peers = new ConcurrentHashMap<>();
    private volatile int peersVersion;
    private final UdpCounters sendCounters = new UdpCounters();
    private final UdpCounters receiveCounters = new UdpCounters();
    private volatile boolean closed;

    // Sending thread only.
    private boolean sendErrorLogged;
    /** The thread that last ended a burst: only its sends are held back for one (see {@link #flush()}). */
    private Thread flusher;
    private boolean gsoRefusalLogged;

    // Receiving thread only.
    private final ByteBuffer receiveBuffer;
    private final MemorySegment receiveSegment;
    private final SourceCache dataSources = new SourceCache();
    private final SourceCache prioritySources = new SourceCache();
    private boolean receiveErrorLogged;
    private int lastPolled;
    /** The last {@link #drain} ended because the handler had enough. Receiving thread only. */
    private boolean handlerHadEnough;
    private final SplitReceiver splitReceiver;
    /** Slices of the receive buffer at multiples of {@link #sliceSize}: the datagrams of a coalesced receive. */
    private MemorySegment[] slices = new MemorySegment[0];
    private int sliceSize;

    /**
     * A port over channels already bound and configured non-blocking; takes ownership of them.
     *
     * @param wire            the wire to tell on close, or null
     * @param dataChannel     the data channel
     * @param priorityChannel the priority channel, or null for a single-socket rail
     * @param boundAddress    where the channels are bound
     * @param localAddress    the address advertised to peers
     */
    UdpPort(UdpWire wire, DatagramChannel dataChannel, DatagramChannel priorityChannel, UdpAddress boundAddress,
            UdpAddress localAddress, int maxDatagramSize, int receiveBufferSize, int sendBufferSize) {
        this(wire, new NioUdpSocket(dataChannel, maxDatagramSize),
                priorityChannel == null ? null : new NioUdpSocket(priorityChannel, maxDatagramSize), boundAddress,
                localAddress, maxDatagramSize, receiveBufferSize, sendBufferSize);
    }

    /** A port over sockets of either backend, bound; takes ownership of them; no path limit below the maximum. */
    UdpPort(UdpWire wire, UdpSocket dataChannel, UdpSocket priorityChannel, UdpAddress boundAddress,
            UdpAddress localAddress, int maxDatagramSize, int receiveBufferSize, int sendBufferSize) {
        this(wire, dataChannel, priorityChannel, boundAddress, localAddress, maxDatagramSize, receiveBufferSize,
                sendBufferSize, UdpConfig.MAX_PATH_MTU, maxDatagramSize);
    }

    /**
     * A port over sockets of either backend, bound; takes ownership of them.
     *
     * @param pathMtu        the IP MTU its datagrams should fit ({@link PathMtu})
     * @param pathPacketSize the largest datagram that fits it
     */
    UdpPort(UdpWire wire, UdpSocket dataChannel, UdpSocket priorityChannel, UdpAddress boundAddress,
            UdpAddress localAddress, int maxDatagramSize, int receiveBufferSize, int sendBufferSize, int pathMtu,
            int pathPacketSize) {
        this.wire = wire;
        this.pathMtu = pathMtu;
        this.pathPacketSize = Math.min(pathPacketSize, maxDatagramSize);
        this.dataChannel = dataChannel;
        this.priorityChannel = priorityChannel;
        this.boundAddress = boundAddress;
        this.localAddress = localAddress;
        this.maxDatagramSize = maxDatagramSize;
        this.receiveBufferSize = receiveBufferSize;
        this.sendBufferSize = sendBufferSize;
        // One byte more than the largest datagram accepted, so that a larger one shows as such.
        // A coalesced (GRO) receive may bring up to 64 KiB whatever the largest single datagram is.
        this.receiveBuffer = ByteBuffer.allocateDirect(
                (dataChannel.coalesces() ? Math.max(maxDatagramSize, 1 << 16) : maxDatagramSize) + 1);
        this.receiveSegment = MemorySegment.ofBuffer(receiveBuffer);
        this.splitReceiver = new SplitReceiver(receiveSegment, maxDatagramSize, receiveCounters, this);
        dataChannel.countInto(sendCounters);
    }

    /** The address peers send to: the advertised address if one was configured, else the bound one. */
    @Override
    public UdpAddress localAddress() {
        return localAddress;
    }

    /** Where the channels are bound (the priority port is 0 for a single-socket rail). */
    public UdpAddress boundAddress() {
        return boundAddress;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Also remembers the address, so that datagrams from either of its sockets are reported as
     * coming from it (the latest address resolved wins for a socket address). Safe from any thread.
     *
     * @throws IllegalArgumentException naming the text if it is not a udp peer address, or if its
     *                                  address family cannot be reached from this port's sockets
     */
    @Override
    public UdpAddress resolve(String address) {
        UdpAddress a = UdpAddress.parse(address);
        InetAddress host = a.socketAddress().getAddress();
        InetAddress bound = boundAddress.socketAddress().getAddress();
        boolean reachable = bound instanceof Inet4Address ? host instanceof Inet4Address
                : bound.isAnyLocalAddress() || host instanceof Inet6Address;
        if (!reachable) {
            throw new IllegalArgumentException("udp address '" + address + "' cannot be reached from the port bound at "
                    + boundAddress.text() + " (another address family)");
        }
        synchronized (peers) {
            boolean changed = !a.equals(peers.put(a.socketAddress(), a));
            if (a.hasPriorityPort()) {
                changed |= !a.equals(peers.put(a.prioritySocketAddress(), a));
            }
            if (changed) {
                peersVersion++;
            }
        }
        return a;
    }

    /** {@link UdpConfig#maxDatagramSize()}. */
    @Override
    public int maxPacketSize() {
        return maxDatagramSize;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The largest UDP payload of one IP packet of {@link #pathMtu()} bytes, at most
     * {@link #maxPacketSize()}.
     */
    @Override
    public int pathPacketSize() {
        return pathPacketSize;
    }

    /** The IP MTU this port's datagrams are sized for: {@link UdpConfig#pathMtu()}, or the bound interface's. */
    public int pathMtu() {
        return pathMtu;
    }

    /**
     * What the kernel's segmentation offloads do for this port, e.g. {@code "gso on, gro on"}, or
     * why one is off (NIO backend, old kernel, configured off, refused on this route).
     */
    public String offloads() {
        return dataChannel instanceof NativeUdpSocket n ? n.offloads()
                : "gso off, gro off (the nio backend has neither)";
    }

    /** The data socket, for tests of the package. */
    UdpSocket dataSocket() {
        return dataChannel;
    }

    /** SO_RCVBUF of the data channel as the kernel reports it (Linux: twice the usable size). */
    @Override
    public int receiveBufferSize() {
        return receiveBufferSize;
    }

    /** SO_SNDBUF of the data channel as the kernel reports it (Linux: twice the usable size). */
    public int sendBufferSize() {
        return sendBufferSize;
    }

    /**
     * {@inheritDoc}
     *
     * <p>A priority datagram goes to the peer's priority port (its data port if it has none) and
     * leaves from this rail's priority socket (its data socket for a single-socket rail). Returns
     * false, never blocking, when the socket's send buffer is full, on an I/O error (counted, the
     * first one logged) and once closed.
     *
     * @throws IllegalArgumentException if {@code to} is not a {@link UdpAddress} or {@code length}
     *                                  is outside 0..min(maxPacketSize, segment size)
     */
    @Override
    public boolean send(WireAddress to, MemorySegment packet, int length, boolean priority) {
        if (!(to instanceof UdpAddress destination)) {
            throw new IllegalArgumentException("not a udp address: " + to);
        }
        if (length < 0 || length > maxDatagramSize || length > packet.byteSize()) {
            throw new IllegalArgumentException("length must be in 0.." + maxDatagramSize
                    + " and within the segment (" + packet.byteSize() + " bytes), was " + length);
        }
        return send(destination, packet, length, null, 0, 0, priority);
    }

    /**
     * {@inheritDoc}
     *
     * <p>On the native backend one {@code sendmsg} gathers both parts; on NIO the payload is copied
     * behind the header first. Otherwise as {@link #send(WireAddress, MemorySegment, int, boolean)}.
     *
     * @throws IllegalArgumentException if {@code to} is not a {@link UdpAddress}, a length is
     *                                  negative, the datagram exceeds {@link #maxPacketSize()} or
     *                                  a part lies outside its segment
     */
    @Override
    public boolean send(WireAddress to, MemorySegment header, int headerLength, MemorySegment payload,
                        long payloadOffset, int payloadLength, boolean priority) {
        if (!(to instanceof UdpAddress destination)) {
            throw new IllegalArgumentException("not a udp address: " + to);
        }
        if (headerLength < 0 || payloadLength < 0 || (long) headerLength + payloadLength > maxDatagramSize
                || headerLength > header.byteSize() || payloadOffset < 0
                || payloadOffset > payload.byteSize() - payloadLength) {
            throw new IllegalArgumentException("header " + headerLength + " of " + header.byteSize()
                    + " bytes and payload " + payloadOffset + "+" + payloadLength + " of " + payload.byteSize()
                    + " bytes must lie in their segments and make at most " + maxDatagramSize + " bytes");
        }
        if (!dataChannel.gathers() && (long) headerLength + payloadLength > header.byteSize()) {
            throw new IllegalArgumentException("the header segment (" + header.byteSize()
                    + " bytes) has no room for the payload behind the header (" + headerLength + " + " + payloadLength
                    + "), which the NIO backend needs");
        }
        return send(destination, header, headerLength, payload, payloadOffset, payloadLength, priority);
    }

    /** Whether the gathering send avoids copying the payload (the native backend). */
    @Override
    public boolean gathers() {
        return dataChannel.gathers();
    }

    /** Which backend drives this port's sockets. */
    public UdpConfig.Backend backend() {
        return dataChannel instanceof NativeUdpSocket ? UdpConfig.Backend.NATIVE : UdpConfig.Backend.NIO;
    }

    private boolean send(UdpAddress destination, MemorySegment header, int headerLength, MemorySegment payload,
                         long payloadOffset, int payloadLength, boolean priority) {
        if (closed) {
            return false;
        }
        UdpSocket channel = priority && priorityChannel != null ? priorityChannel : dataChannel;
        InetSocketAddress target = priority ? destination.prioritySocketAddress() : destination.socketAddress();
        int length = headerLength + payloadLength;
        if (channel == dataChannel && dataChannel.holds()) {
            if (payload != null && Thread.currentThread() == flusher) {
                return hold(target, header, headerLength, payload, payloadOffset, payloadLength);
            }
            flushHeld(); // what is held leaves first: one socket, one order
        }
        try {
            boolean sent = payload == null ? channel.send(header, headerLength, target)
                    : channel.send(header, headerLength, payload, payloadOffset, payloadLength, target);
            if (!sent) {
                sendCounters.increment(UdpCounters.SEND_BUFFER_FULL);
                return false;
            }
        } catch (ClosedChannelException e) {
            if (!closed) {
                logSendError(target, e);
            }
            return false;
        } catch (IOException | UnsupportedAddressTypeException | SecurityException e) {
            sendCounters.increment(UdpCounters.SEND_ERRORS);
            logSendError(target, e);
            return false;
        }
        sendCounters.increment(UdpCounters.DATAGRAMS_SENT);
        sendCounters.add(UdpCounters.BYTES_SENT, length);
        return true;
    }

    /** Holds a datagram for the data channel's next GSO burst; its outcome is counted when it leaves. */
    private boolean hold(InetSocketAddress target, MemorySegment header, int headerLength, MemorySegment payload,
                         long payloadOffset, int payloadLength) {
        try {
            dataChannel.hold(header, headerLength, payload, payloadOffset, payloadLength, target);
        } catch (ClosedChannelException e) {
            if (!closed) {
                logSendError(target, e);
            }
            return false;
        } catch (IOException | UnsupportedAddressTypeException | SecurityException e) {
            logSendError(target, e);
            return false;
        }
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Sends the GSO burst the data channel holds, if any, and from now on holds datagrams back
     * only for the calling thread's sends (another thread's sends go at once).
     */
    @Override
    public void flush() {
        flusher = Thread.currentThread();
        flushHeld();
    }

    private void flushHeld() {
        InetSocketAddress target = null;
        try {
            dataChannel.flushHeld();
        } catch (ClosedChannelException e) {
            if (!closed) {
                logSendError(target, e);
            }
        } catch (IOException | RuntimeException e) {
            logSendError(target, e);
        }
        if (!gsoRefusalLogged && dataChannel instanceof NativeUdpSocket n && n.gsoRefused() != null) {
            gsoRefusalLogged = true;
            LOG.warn("udp port {}: GSO off, one datagram per call from now on: {}", localAddress.text(),
                    n.gsoRefused());
        }
    }

    private void logSendError(InetSocketAddress target, Exception e) {
        if (!sendErrorLogged) {
            sendErrorLogged = true;
            LOG.warn("udp port {}: sending to {} failed (later failures are only counted): {}", localAddress.text(),
                    target == null ? "a peer" : target, e.toString());
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Order: the priority channel up to {@code limit - limit/8} datagrams, then the data channel,
     * then the priority channel again with what is left, if it filled its share or the data channel
     * brought something; the eighth kept back means a flood on the priority port cannot starve the
     * data channel. The second look is for a priority datagram that arrived between the first two:
     * sent before what the data channel then brought (the soft engine sends a data packet on the
     * priority channel only when nothing of its stream is in flight before it), it would otherwise
     * be taken a call later, out of order, and the holes it leaves until then are reported
     * (a busy-polling receiver, which polls all the time, met that window for 1-2% of 32-byte
     * messages, and the sender resent them: docs/PERFORMANCE.md, tenth round). Datagrams larger than
     * {@link #maxPacketSize()} are dropped and counted, and use up the limit too. The source is
     * the resolved {@link UdpAddress} it belongs to, or a single-socket address of the bare
     * source when no resolved address owns it. A coalesced (GRO) receive counts as the datagrams
     * it brings, all handed over, so the last receive of a call may take it past {@code limit}.
     * Once the handler has {@linkplain PacketHandler#receiveMore enough}, the call ends: after a
     * priority datagram at once, after a data datagram with the second look, which drains the
     * priority channel as it always does (whatever arrived there may have been sent before the data
     * datagram). A coalesced (GRO) receive is handed over whole either way. A single-socket port's
     * call ends after the datagram.
     */
    @Override
    public int receive(PacketHandler handler, int limit) {
        if (closed || limit <= 0) {
            return 0;
        }
        if (priorityChannel == null) {
            return drain(dataChannel, dataSources, handler, limit, false, true);
        }
        int quota = limit - (limit >>> 3);
        int n = drain(priorityChannel, prioritySources, handler, quota, true, true);
        int priorityPolled = lastPolled;
        if (handlerHadEnough) {
            return n; // a data packet takes the priority channel only as its stream's una: nothing in the data socket precedes it
        }
        int budget = limit - priorityPolled;
        n += drain(dataChannel, dataSources, handler, budget, false, true);
        int dataPolled = lastPolled;
        if ((priorityPolled == quota || dataPolled > 0) && dataPolled < budget) {
            n += drain(priorityChannel, prioritySources, handler, budget - dataPolled, true, false);
        }
        return n;
    }

    /**
     * Receives up to {@code budget} datagrams from {@code channel}, handing each that fits to the
     * handler, until the handler has {@linkplain PacketHandler#receiveMore enough} if {@code mayEnd}
     * ({@link #handlerHadEnough}). Returns the number handed; {@link #lastPolled} is the number received.
     */
    private int drain(UdpSocket channel, SourceCache sources, PacketHandler handler, int budget,
                      boolean priority, boolean mayEnd) {
        int handed = 0;
        lastPolled = 0;
        handlerHadEnough = false;
        PlacingPacketHandler placing = !priority && channel.splits() && handler instanceof PlacingPacketHandler p
                ? p : null;
        for (int i = 0; i < budget; i++) {
            if (mayEnd && handed > 0 && !handler.receiveMore()) {
                handlerHadEnough = true;
                return handed;
            }
            if (placing != null) {
                int r = splitReceiver.next(channel, sources, placing, handler);
                if (r == SplitReceiver.NONE) {
                    return handed;
                }
                if (r == SplitReceiver.HANDED) {
                    lastPolled++;
                    int n = splitReceiver.handedLast();
                    handed += n;
                    i += n - 1; // a coalesced receive brings several datagrams: the budget counts datagrams
                    continue;
                }
                if (r == SplitReceiver.DROPPED) {
                    lastPolled++;
                    continue;
                }
                // NOT_SPLIT: receive it whole below
            }
            InetSocketAddress source;
            try {
                source = channel.receive(receiveSegment);
            } catch (ClosedChannelException e) {
                if (!closed) {
                    logReceiveError(e); // closed under the receiving thread, e.g. by an interrupt
                }
                return handed;
            } catch (IOException e) {
                receiveCounters.increment(UdpCounters.RECEIVE_ERRORS);
                logReceiveError(e);
                return handed;
            }
            if (source == null) {
                if (placing != null) {
                    splitReceiver.nothingReceived();
                }
                return handed;
            }
            lastPolled++;
            int length = channel.receivedLength();
            int segment = channel.segmentSize();
            if (segment > 0 && placing != null) {
                splitReceiver.coalescedReceivedWhole();
            }
            if (segment > 0) {
                int n = handOver(handler, sources.from(source), length, segment, 0);
                handed += n;
                i += Math.max(0, n - 1);
                continue;
            }
            if (length > maxDatagramSize) {
                receiveCounters.increment(UdpCounters.OVERSIZE_DROPS);
                continue;
            }
            receiveCounters.increment(UdpCounters.DATAGRAMS_RECEIVED);
            receiveCounters.add(UdpCounters.BYTES_RECEIVED, length);
            if (priority) {
                receiveCounters.increment(UdpCounters.PRIORITY_RECEIVED);
            }
            handler.onPacket(receiveSegment, length, sources.from(source));
            handed++;
        }
        return handed;
    }

    /**
     * Hands the datagrams of a coalesced (GRO) receive in the receive buffer to {@code handler},
     * each as the datagram it was: {@code length} bytes in all, {@code segment} bytes each (the last
     * may be shorter), starting with datagram {@code first} (those before were handled already).
     * What the buffer cut off (a receive longer than it) is dropped and counted.
     *
     * @return the datagrams handed over
     */
    int handOver(PacketHandler handler, UdpAddress from, int length, int segment, int first) {
        receiveCounters.increment(UdpCounters.GRO_RECEIVES); // called once per coalesced receive
        int received = (int) Math.min(length, receiveSegment.byteSize() - 1);
        int handed = 0;
        for (int i = first; (long) i * segment < length; i++) {
            int offset = i * segment;
            int n = Math.min(segment, length - offset);
            if (offset + n > received || n > maxDatagramSize) {
                receiveCounters.increment(UdpCounters.OVERSIZE_DROPS);
                continue;
            }
            receiveCounters.increment(UdpCounters.DATAGRAMS_RECEIVED);
            receiveCounters.increment(UdpCounters.COALESCED_RECEIVED);
            receiveCounters.add(UdpCounters.BYTES_RECEIVED, n);
            handler.onPacket(slice(i, segment), n, from);
            handed++;
        }
        return handed;
    }

    /** The receive buffer from datagram {@code index} of a coalesced receive of {@code segment}-byte datagrams. */
    MemorySegment slice(int index, int segment) {
        if (index == 0) {
            return receiveSegment;
        }
        if (segment != sliceSize) {
            slices = new MemorySegment[(int) (receiveSegment.byteSize() / segment) + 1];
            sliceSize = segment;
        }
        MemorySegment s = slices[index];
        if (s == null) {
            s = receiveSegment.asSlice((long) index * segment);
            slices[index] = s;
        }
        return s;
    }

    /** Counts and logs a failed receive; a close under the receiving thread is only logged. */
    void receiveFailed(IOException e) {
        if (e instanceof ClosedChannelException) {
            if (!closed) {
                logReceiveError(e); // closed under the receiving thread, e.g. by an interrupt
            }
            return;
        }
        receiveCounters.increment(UdpCounters.RECEIVE_ERRORS);
        logReceiveError(e);
    }

    void logReceiveError(Exception e) {
        if (!receiveErrorLogged) {
            receiveErrorLogged = true;
            LOG.warn("udp port {}: receiving failed (later failures are only counted): {}", localAddress.text(),
                    e.toString());
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>A UDP port cannot tell without a selector thread of its own, so it ignores
     * {@code wakeup} and never calls it: an idle progress agent blocks on {@link #readableFds()} or
     * {@link #readableChannels()} instead, which wake it when a datagram arrives.
     */
    @Override
    public void onReceivable(Runnable wakeup) {
        // Nothing to register: see above.
    }

    /** The native sockets' descriptors (data, then priority), or none with the NIO backend. */
    @Override
    public int[] readableFds() {
        UdpSocket[] all = sockets();
        int[] fds = new int[all.length];
        for (int i = 0; i < all.length; i++) {
            if ((fds[i] = all[i].pollFd()) < 0) {
                return new int[0];
            }
        }
        return fds;
    }

    /** The NIO channels (data, then priority), or none with the native backend. */
    @Override
    public java.nio.channels.SelectableChannel[] readableChannels() {
        UdpSocket[] all = sockets();
        java.nio.channels.SelectableChannel[] channels = new java.nio.channels.SelectableChannel[all.length];
        for (int i = 0; i < all.length; i++) {
            if ((channels[i] = all[i].selectable()) == null) {
                return new java.nio.channels.SelectableChannel[0];
            }
        }
        return channels;
    }

    private UdpSocket[] sockets() {
        return priorityChannel == null ? new UdpSocket[] {dataChannel} : new UdpSocket[] {dataChannel, priorityChannel};
    }

    /** A snapshot of this port's counters. */
    public UdpPortStats stats() {
        long[] totals = new long[UdpCounters.COUNT];
        sendCounters.addTo(totals);
        receiveCounters.addTo(totals);
        return UdpPortStats.of(totals);
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Closes both channels; idempotent, any thread. A send or receive running concurrently returns
     * false or 0.
     */
    @Override
    public void close() {
        if (!CLOSED.compareAndSet(this, false, true)) {
            return;
        }
        closeQuietly(priorityChannel);
        closeQuietly(dataChannel);
        if (wire != null) {
            wire.unbind(this);
        }
        LOG.debug("udp port {} closed: {}", localAddress.text(), stats());
    }

    private void closeQuietly(UdpSocket channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("udp port {}: closing a channel failed", localAddress.text(), e);
        }
    }

    @Override
    public String toString() {
        return "UdpPort[" + localAddress.text() + (localAddress.equals(boundAddress) ? "" : " bound " + boundAddress.text())
                + (closed ? ", closed]" : "]");
    }

    /**
     * The last source seen on one channel and the address reported for it; looked up again when the
     * source changes or a new address was resolved since. Receiving thread only.
     */
    final class SourceCache {
        private InetSocketAddress last;
        private UdpAddress from;
        private int version = -1;

        UdpAddress from(InetSocketAddress source) {
            int v = peersVersion;
            if (v == version && (source == last || source.equals(last))) {
                return from;
            }
            UdpAddress a = peers.get(source);
            if (a == null) {
                a = new UdpAddress(source, 0);
            }
            last = source;
            from = a;
            version = v;
            return a;
        }
    }
}
