package io.slime4j.wire.inproc;

import io.slime4j.wire.PacketHandler;
import io.slime4j.wire.WireAddress;
import io.slime4j.wire.WirePort;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.PriorityQueue;

/**
 * A port of an {@link InprocWire}. Sending copies the datagram into a buffer from this port's pool
 * and offers it to one of the destination's two bounded MPSC queues (priority or data); receiving
 * polls them, priority first, and returns each buffer to its sender's pool after the handler.
 * Copies the fault injector holds back carry a due time: the receiver moves them from the queue
 * into a receiver-local heap ordered by due time and hands them over once due, so copies without
 * delay overtake them.
 *
 * <p>Threading as in {@link io.slime4j.wire.inproc}: one sending thread, one receiving thread (may
 * be the same), {@link #close()} from any thread.
 */
final class InprocPort implements WirePort {

    /**
     * Buffers a port keeps for reuse (the usnic send window); more in flight are allocated and left
     * to the collector. Each keeps the size of the largest datagram it has carried.
     */
    static final int POOL_CAPACITY = 4096;

    /** Queue polls per receive call beyond {@code limit} spent moving held copies aside. */
    private static final int HOLD_BUDGET = 1024;

    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(InprocPort.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final InprocWire wire;
    private final InprocAddress address;
    private final int index;
    private final MpscArrayQueue<Packet> priorityQueue = new MpscArrayQueue<>(InprocWire.QUEUE_CAPACITY);
    private final MpscArrayQueue<Packet> dataQueue = new MpscArrayQueue<>(InprocWire.QUEUE_CAPACITY);
    private final MpscArrayQueue<Packet> pool = new MpscArrayQueue<>(POOL_CAPACITY);
    private final FaultCounters sendCounters = new FaultCounters();
    private final FaultCounters receiveCounters = new FaultCounters();
    private volatile boolean closed;
    private volatile Runnable wakeup;

    // Sending thread only.
    private final FaultInjector injector;
    private InprocAddress lastTo;
    private InprocPort lastDestination;

    // Receiving thread only.
    private final PriorityQueue<Packet> priorityHeld = new PriorityQueue<>(Packet.BY_DUE_TIME);
    private final PriorityQueue<Packet> dataHeld = new PriorityQueue<>(Packet.BY_DUE_TIME);
    private long holdOrder;
    private long nowNanos;
    private boolean nowRead;

    InprocPort(InprocWire wire, InprocAddress address, int index) {
        this.wire = wire;
        this.address = address;
        this.index = index;
        this.injector = new FaultInjector(index, sendCounters);
    }

    @Override
    public InprocAddress localAddress() {
        return address;
    }

    /** Order in which the port was bound on its wire, from 0; seeds its fault generator. */
    int index() {
        return index;
    }

    @Override
    public InprocAddress resolve(String address) {
        return InprocAddress.parse(address);
    }

    @Override
    public int maxPacketSize() {
        return InprocWire.MAX_PACKET_SIZE;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Returns true for an address with no open port (the datagram is lost, as UDP's would be)
     * and for a datagram the injector drops.
     *
     * @throws IllegalArgumentException if {@code to} is not an {@link InprocAddress} or
     *                                  {@code length} is outside 0..min(maxPacketSize, segment size)
     */
    @Override
    public boolean send(WireAddress to, MemorySegment packet, int length, boolean priority) {
        if (!(to instanceof InprocAddress destinationAddress)) {
            throw new IllegalArgumentException("not an inproc address: " + to);
        }
        if (length < 0 || length > InprocWire.MAX_PACKET_SIZE || length > packet.byteSize()) {
            throw new IllegalArgumentException("length must be in 0.." + InprocWire.MAX_PACKET_SIZE
                    + " and within the segment (" + packet.byteSize() + " bytes), was " + length);
        }
        if (closed) {
            return false;
        }
        sendCounters.increment(FaultCounters.SENT);
        InprocPort destination = destination(destinationAddress);
        FaultInjector faults = injector.refresh(wire.faults());
        if (!faults.active()) {
            return transmit(destination, packet, length, priority, false, 0);
        }
        if (faults.drop()) {
            return true;
        }
        boolean twice = faults.duplicate();
        long hold = faults.hold();
        boolean queued = transmit(destination, packet, length, priority, hold > 0, dueTime(hold));
        if (twice) {
            hold = faults.hold();
            transmit(destination, packet, length, priority, hold > 0, dueTime(hold));
        }
        return queued;
    }

    private static long dueTime(long holdNanos) {
        return holdNanos > 0 ? System.nanoTime() + holdNanos : 0;
    }

    private InprocPort destination(InprocAddress to) {
        InprocPort destination = lastDestination;
        if (destination == null || destination.closed || !(to == lastTo || to.equals(lastTo))) {
            destination = wire.port(to);
            lastTo = to;
            lastDestination = destination;
        }
        return destination;
    }

    private boolean transmit(InprocPort destination, MemorySegment source, int length, boolean priority,
                             boolean timed, long dueNanos) {
        if (destination == null || destination.closed) {
            sendCounters.increment(FaultCounters.UNKNOWN_DESTINATION);
            return true;
        }
        Packet p = pool.poll();
        if (p == null) {
            p = new Packet(this);
        }
        p.fill(source, length);
        p.timed = timed;
        p.dueNanos = dueNanos;
        if (!(priority ? destination.priorityQueue : destination.dataQueue).offer(p)) {
            sendCounters.increment(FaultCounters.QUEUE_FULL);
            pool.offer(p);
            return false;
        }
        Runnable w = destination.wakeup;
        if (w != null) {
            w.run();
        }
        return true;
    }

    @Override
    public int receive(PacketHandler handler, int limit) {
        if (closed || limit <= 0) {
            return 0;
        }
        nowRead = false;
        int n = drain(priorityQueue, priorityHeld, handler, limit);
        if (n < limit && (n == 0 || handler.receiveMore())) {
            n += drain(dataQueue, dataHeld, handler, limit - n);
        }
        return n;
    }

    private int drain(MpscArrayQueue<Packet> queue, PriorityQueue<Packet> held, PacketHandler handler, int limit) {
        int n = 0;
        Packet p;
        if (!held.isEmpty()) {
            long now = now();
            while (n < limit && (p = held.peek()) != null && p.dueNanos - now <= 0) {
                held.poll();
                deliver(p, handler);
                n++;
                if (!handler.receiveMore()) {
                    return n;
                }
            }
        }
        int polls = limit > Integer.MAX_VALUE - HOLD_BUDGET ? Integer.MAX_VALUE : limit + HOLD_BUDGET;
        while (n < limit && polls-- > 0 && (p = queue.poll()) != null) {
            if (p.timed && p.dueNanos - now() > 0) {
                p.holdOrder = holdOrder++;
                held.add(p);
            } else {
                deliver(p, handler);
                n++;
                if (!handler.receiveMore()) {
                    break;
                }
            }
        }
        return n;
    }

    private long now() {
        if (!nowRead) {
            nowNanos = System.nanoTime();
            nowRead = true;
        }
        return nowNanos;
    }

    private void deliver(Packet p, PacketHandler handler) {
        receiveCounters.increment(FaultCounters.DELIVERED);
        try {
            handler.onPacket(p.buffer, p.length, p.owner.address);
        } finally {
            p.owner.pool.offer(p);
        }
    }

    /** {@inheritDoc} The wakeup runs on the sending thread right after a copy is queued. */
    @Override
    public void onReceivable(Runnable wakeup) {
        this.wakeup = wakeup;
    }

    /**
     * None: the wakeup registered with {@link #onReceivable} wakes an idle agent when a copy is
     * queued. (A copy the fault injector delays is handed over only when the agent looks again once
     * it is due: on its next timer or arrival, within its idle bound.)
     */
    @Override
    public int[] readableFds() {
        return new int[0];
    }

    /** None, as {@link #readableFds()}. */
    @Override
    public java.nio.channels.SelectableChannel[] readableChannels() {
        return new java.nio.channels.SelectableChannel[0];
    }

    /** Whether {@link #close()} has been called. */
    boolean isClosed() {
        return closed;
    }

    /** Adds this port's counters into {@code totals}. */
    void addCountersTo(long[] totals) {
        sendCounters.addTo(totals);
        receiveCounters.addTo(totals);
    }

    /** Idempotent; frees the name for a new bind. Queued and held copies are discarded. */
    @Override
    public void close() {
        if (CLOSED.compareAndSet(this, false, true)) {
            wire.unbind(this);
        }
    }

    @Override
    public String toString() {
        return "InprocPort[" + address.text() + (closed ? ", closed]" : "]");
    }
}
