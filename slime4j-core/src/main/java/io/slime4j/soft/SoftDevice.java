package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;

import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.VerbsException;
import io.slime4j.wire.PacketHandler;
import io.slime4j.wire.PlacingPacketHandler;
import io.slime4j.wire.Wire;
import io.slime4j.wire.WireAddress;
import io.slime4j.wire.WirePort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A software RDMA device: the verbs API implemented by a reliable-connection engine over a
 * {@link Wire}. One {@link ProgressAgent} thread owns all protocol state of the device's queue
 * pairs (no locks on the data path): the device's own, or one it shares with the other devices of
 * a {@link ProgressGroup}. Application threads post into queue pair rings and poll completion
 * queues.
 *
 * <pre>{@code
 * Wire wire = new InprocWire();
 * try (SoftDevice a = SoftDevice.open(wire, "a", SoftConfig.defaults())) { ... }
 * }</pre>
 */
public final class SoftDevice implements VerbsDevice {
    private static final Logger LOG = LoggerFactory.getLogger(SoftDevice.class);
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final int RECEIVE_BATCH = 256;
    private static final int MAX_QPS = 1 << 16;
    private static final long QUIESCENCE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final String name;
    private final SoftConfig config;
    private final WirePort port;
    private final KeyTable keyTable = new KeyTable();
    private final CounterSet counters = new CounterSet(null);
    private final TimerWheel timers;
    private final ProgressAgent agent;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final HeaderFlyweight txHeader = new HeaderFlyweight();
    private final boolean portGathers;
    private final HeaderFlyweight rxHeader = new HeaderFlyweight();
    private final MemorySegment scratch8 = Arena.ofAuto().allocate(8, 8);
    private final PacketHandler packetHandler = new Placer();
    private final TimerWheel.Handler timeoutHandler =
            (t, now) -> ((SendSegment) t).owner.onTimeout((SendSegment) t, now);
    private volatile SoftQueuePair[] queuePairs = new SoftQueuePair[0];
    private final SoftQueuePair[] byQpn = new SoftQueuePair[MAX_QPS + 1];
    private int nextQpn = 1;
    private final JmxCounters jmx;
    private volatile boolean closed;
    /** Set once the agent no longer drives this device (closed, or its agent died): work then runs on the calling thread. */
    private volatile boolean detached;
    private long now;
    private boolean placedPayload; // agent thread only

    private SoftDevice(WirePort port, SoftConfig config, ProgressGroup group) {
        this.port = port;
        this.config = config;
        this.name = config.name().isEmpty() ? "soft-" + NAMES.incrementAndGet() : config.name();
        long tick = config.timerTick().toNanos();
        this.timers = new TimerWheel(tick, 4096, System.nanoTime());
        this.txHeader.wrap(Arena.ofAuto().allocate(port.maxPacketSize(), 64));
        this.portGathers = port.gathers();
        this.agent = group != null ? group.agent() : new ProgressAgent(name, config.busySpin(), config.maxIdlePark());
        port.onReceivable(agent::wakeup);
        this.jmx = JmxCounters.register(counters, "io.slime4j:type=SoftDevice,name=" + JmxCounters.quote(name));
        try {
            agent.attach(this);
        } catch (RuntimeException e) {
            if (jmx != null) {
                jmx.unregister();
            }
            throw e;
        }
        LOG.debug("device {} open at {}", name, port.localAddress().text());
    }

    /** Opens a device on an already bound port; the device owns and closes the port. */
    public static SoftDevice open(WirePort port, SoftConfig config) {
        return new SoftDevice(port, config, null);
    }

    /** Binds a port of {@code wire} at {@code address} and opens a device on it, with a progress thread of its own. */
    public static SoftDevice open(Wire wire, String address, SoftConfig config) {
        return new SoftDevice(wire.bind(address), config, null);
    }

    /**
     * Binds a port of {@code wire} at {@code address} and opens a device on it, driven by the
     * progress thread of {@code group} together with the group's other devices (the device's
     * {@link SoftConfig#busySpin()} and {@link SoftConfig#maxIdlePark()} give way to the group's).
     */
    public static SoftDevice open(Wire wire, String address, SoftConfig config, ProgressGroup group) {
        if (group == null) {
            throw new IllegalArgumentException("group must not be null (use open(wire, address, config) for a thread of its own)");
        }
        WirePort port = wire.bind(address);
        try {
            return new SoftDevice(port, config, group);
        } catch (RuntimeException | Error e) {
            port.close();
            throw e;
        }
    }

    // ---------------------------------------------------------------- VerbsDevice

    @Override
    public String name() {
        return name;
    }

    @Override
    public String address() {
        return port.localAddress().text();
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        checkOpen();
        return new SoftProtectionDomain(this);
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity) {
        checkOpen();
        return new SoftCompletionQueue(this, capacity);
    }

    @Override
    public synchronized QueuePair createQueuePair(ProtectionDomain pd, QpConfig qpConfig, CompletionQueue sendCq,
                                                  CompletionQueue recvCq) {
        checkOpen();
        if (!(pd instanceof SoftProtectionDomain spd) || spd.device() != this) {
            throw new IllegalArgumentException("protection domain does not belong to device " + name);
        }
        SoftCompletionQueue scq = ownCq(sendCq, "send");
        SoftCompletionQueue rcq = ownCq(recvCq, "receive");
        if (qpConfig == null) {
            throw new IllegalArgumentException("QpConfig must not be null");
        }
        if (qpConfig.mtu() == QpConfig.MTU_FROM_PATH) { // the largest the wire carries unfragmented (docs/WIRE.md)
            qpConfig = qpConfig.toBuilder().mtu(Math.max(QpConfig.MIN_MTU,
                    Math.min(QpConfig.DEFAULT_MAX_MTU, port.pathPacketSize() - HEADER_LENGTH))).build();
        }
        if (qpConfig.mtu() + HEADER_LENGTH > port.maxPacketSize()) {
            throw new IllegalArgumentException("mtu " + qpConfig.mtu() + " plus the " + HEADER_LENGTH
                    + "-byte header exceeds the largest datagram of " + address() + " (" + port.maxPacketSize() + ")");
        }
        int qpn = allocateQpn();
        SoftQueuePair qp = new SoftQueuePair(this, qpn, spd, qpConfig, scq, rcq);
        byQpn[qpn] = qp;
        qp.registerJmx(JmxCounters.register(qp.counters(), "io.slime4j:type=QueuePair,device="
                + JmxCounters.quote(name) + ",qpn=" + qpn));
        SoftQueuePair[] all = Arrays.copyOf(queuePairs, queuePairs.length + 1);
        all[all.length - 1] = qp;
        queuePairs = all;
        return qp;
    }

    private SoftCompletionQueue ownCq(CompletionQueue cq, String what) {
        if (!(cq instanceof SoftCompletionQueue scq) || scq.device() != this) {
            throw new IllegalArgumentException(what + " completion queue does not belong to device " + name);
        }
        return scq;
    }

    private int allocateQpn() {
        for (int i = 0; i < MAX_QPS; i++) {
            int qpn = nextQpn;
            nextQpn = nextQpn == MAX_QPS ? 1 : nextQpn + 1;
            if (byQpn[qpn] == null) {
                return qpn;
            }
        }
        throw new VerbsException("device " + name + " has " + MAX_QPS + " queue pairs already");
    }

    /** Removes a queue pair once the agent has flushed it. */
    void destroyQueuePair(SoftQueuePair qp) {
        runOnAgent(() -> {
            qp.enterError();
            qp.unregisterJmx();
            synchronized (this) {
                if (byQpn[qp.qpn()] == qp) {
                    byQpn[qp.qpn()] = null;
                    queuePairs = without(queuePairs, qp);
                }
            }
        });
    }

    /** A copy of {@code all} without {@code gone} (for copy-on-write arrays read by the agent). */
    static <T> T[] without(T[] all, T gone) {
        T[] kept = Arrays.copyOf(all, all.length);
        int n = 0;
        for (T x : all) {
            if (x != gone) {
                kept[n++] = x;
            }
        }
        return Arrays.copyOf(kept, n);
    }

    @Override
    public Counters counters() {
        return counters;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (!agent.detach(this, 5_000)) {
                LOG.warn("progress agent {} did not let go of {} within 5 s; flushing anyway", agent.name(), name);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        detached = true;
        // the agent no longer drives this device: this thread is now the only producer of completions
        for (SoftQueuePair qp : queuePairs) {
            qp.enterError();
        }
        runCommands();
        for (SoftQueuePair qp : queuePairs) {
            qp.unregisterJmx();
        }
        if (jmx != null) {
            jmx.unregister();
        }
        port.close();
        LOG.debug("device {} closed; counters {}", name, counters);
    }

    private void checkOpen() {
        if (closed) {
            throw new VerbsException("device " + name + " is closed");
        }
    }

    // ---------------------------------------------------------------- engine services

    SoftConfig softConfig() {
        return config;
    }

    KeyTable keyTable() {
        return keyTable;
    }

    CounterSet countersSet() {
        return counters;
    }

    TimerWheel timers() {
        return timers;
    }

    HeaderFlyweight txHeader() {
        return txHeader;
    }

    MemorySegment scratch8() {
        return scratch8;
    }

    WireAddress resolve(String address) {
        return port.resolve(address);
    }

    void wakeup() {
        agent.wakeup();
    }

    /** Runs {@code command} on the agent thread (or here, if the agent no longer drives this device). */
    void runOnAgent(Runnable command) {
        if (detached || !agent.isRunning() || Thread.currentThread() == agent.thread()) {
            command.run();
            return;
        }
        commands.add(command);
        agent.wakeup();
    }

    /**
     * Returns once every memory access the agent may have begun before this call has ended: waits
     * for two complete duty cycles (bounded; not needed on the agent thread or once it stopped).
     */
    void awaitQuiescence() {
        if (detached || !agent.isRunning() || Thread.currentThread() == agent.thread()) {
            return;
        }
        if (!agent.awaitCycles(2, QUIESCENCE_TIMEOUT_NANOS)) {
            LOG.warn("device {}: agent did not complete a cycle within 5 s during deregistration", name);
        }
    }

    /**
     * The receive window this device advertises to each peer, in bytes of packets of
     * {@code packetBytes} (header included; a sender counts every packet in flight as that much):
     * its port's receive buffer, shared among its queue pairs so that all peers together cannot
     * overrun it. The buffer holds at most half its reported size in payload (kernels report
     * twice what was asked for), and fewer small datagrams than that: the kernel charges each
     * datagram its true size, which below 16 KiB is a power-of-two allocation, about twice the
     * datagram (a 4 KiB packet costs about 8.3 KiB on Linux).
     */
    long receiveWindowBytes(int packetBytes) {
        long buffer = port.receiveBufferSize();
        long packets = Math.min(buffer / 2 / packetBytes, buffer / datagramCost(packetBytes));
        int n = Math.max(1, queuePairs.length);
        return Math.max(2, packets / n) * packetBytes;
    }

    /** What a receive buffer is charged for a datagram of {@code bytes}, at most (Linux, measured on loopback). */
    static long datagramCost(int bytes) {
        return bytes < 16_384 ? Long.highestOneBit((bytes + 384) * 2L - 1) + 1024 : bytes + bytes / 16 + 1024;
    }

    /** The largest datagram the port sends or receives (header included). */
    int maxPacketSize() {
        return port.maxPacketSize();
    }

    /** Sends the packet built in the transmit buffer to {@code qp}'s peer. */
    void transmit(SoftQueuePair qp, int length, boolean priority) {
        if (port.send(qp.peerAddress(), txHeader.segment(), length, priority)) {
            CounterSet c = qp.countersSet();
            c.increment(Counter.PACKETS_SENT);
            c.add(Counter.BYTES_SENT, length);
        } else {
            qp.countersSet().increment(Counter.SEND_DROPS);
        }
    }

    /** Whether the port sends a header and a payload from registered memory without copying. */
    boolean portGathers() {
        return portGathers;
    }

    /**
     * Sends the header built in the transmit buffer ({@code headerLength} bytes) followed by
     * {@code payloadLength} bytes of {@code payload} from {@code payloadOffset}, gathered by the
     * port, to {@code qp}'s peer.
     */
    void transmit(SoftQueuePair qp, int headerLength, MemorySegment payload, long payloadOffset, int payloadLength,
                  boolean priority) {
        int length = headerLength + payloadLength;
        if (port.send(qp.peerAddress(), txHeader.segment(), headerLength, payload, payloadOffset, payloadLength,
                priority)) {
            CounterSet c = qp.countersSet();
            c.increment(Counter.PACKETS_SENT);
            c.add(Counter.BYTES_SENT, length);
        } else {
            qp.countersSet().increment(Counter.SEND_DROPS);
        }
    }

    /** The agent is dying of an Error: fail every queue pair so that nothing waits for ever. */
    void onAgentDeath() {
        for (SoftQueuePair qp : queuePairs) {
            try {
                qp.enterError();
            } catch (Throwable ignored) {
                // best effort while the thread dies
            }
        }
        detached = true; // nothing drives this device any more: commands run on their callers
    }

    boolean isClosed() {
        return closed;
    }

    /** A completion queue overflowed: every queue pair reporting to it fails. */
    void onCompletionQueueOverflow(SoftCompletionQueue cq) {
        LOG.warn("device {}: completion queue of capacity {} overflowed; failing its queue pairs", name, cq.capacity());
        for (SoftQueuePair qp : queuePairs) {
            if (qp.sendCq() == cq || qp.recvCq() == cq) {
                qp.modifyToError();
            }
        }
    }

    // ---------------------------------------------------------------- the duty cycle

    /** One duty cycle: commands, received packets, timers, then every queue pair. */
    int doWork(long nowNanos) {
        this.now = nowNanos;
        int work = runCommands();
        work += port.receive(packetHandler, RECEIVE_BATCH);
        work += timers.poll(nowNanos, timeoutHandler);
        for (SoftQueuePair qp : queuePairs) {
            work += qp.doWork(nowNanos);
        }
        port.flush(); // the burst's held datagrams leave now (UDP GSO)
        return work;
    }

    private int runCommands() {
        int n = 0;
        Runnable c;
        while ((c = commands.poll()) != null) {
            c.run();
            n++;
        }
        return n;
    }

    private void onPacket(MemorySegment packet, int length, WireAddress from) {
        HeaderFlyweight h = rxHeader.wrap(packet);
        if (!h.isWellFormed(length)) {
            counters.increment(Counter.BAD_PACKETS);
            return;
        }
        int qpn = h.destQpn();
        SoftQueuePair qp = qpn > 0 && qpn <= MAX_QPS ? byQpn[qpn] : null;
        if (qp == null || qp.peerAddress() == null) {
            counters.increment(Counter.UNKNOWN_DESTINATION);
            return;
        }
        if (h.token() != qp.localToken()) {
            qp.countersSet().increment(Counter.BAD_TOKEN);
            return;
        }
        if (!from.equals(qp.peerAddress())) {
            qp.countersSet().increment(Counter.UNKNOWN_SOURCE);
            return;
        }
        if (!qp.isActive()) {
            qp.countersSet().increment(Counter.UNKNOWN_DESTINATION);
            if (qp.state() == QpState.ERR) {
                qp.responder().onPacketInError(h);
            }
            return;
        }
        CounterSet c = qp.countersSet();
        c.increment(Counter.PACKETS_RECEIVED);
        c.add(Counter.BYTES_RECEIVED, length);
        if (h.type() == TYPE_ACK) {
            qp.requester().onAckPacket(h, (int) h.operand2(), now);
            return;
        }
        if ((h.flags() & F_ACK) != 0) {
            qp.requester().onCumulativeAck(h.ackPsn(), now);
        }
        qp.responder().onPacket(h, packet, length, now);
    }

    /**
     * Receives for the device, and tells a wire that can split datagrams where an in-order RDMA
     * write's payload goes, so that it lands at its target straight from the socket. Only what
     * would pass every check of {@link #onPacket} and of the responder's placement is placed;
     * anything else is declined and then arrives whole, to be handled (and counted) as usual.
     */
    private final class Placer implements PlacingPacketHandler {
        private final HeaderFlyweight peeked = new HeaderFlyweight();
        private MemorySegment segment;
        private long offset;
        private SoftQueuePair placedQp;
        private int predictedLength;

        @Override
        public void onPacket(MemorySegment packet, int length, WireAddress from) {
            SoftDevice.this.onPacket(packet, length, from);
        }

        @Override
        public int headerLength() {
            return HEADER_LENGTH;
        }

        @Override
        public boolean place(MemorySegment header, int length, WireAddress from) {
            HeaderFlyweight h = peeked.wrap(header);
            if (length <= HEADER_LENGTH || h.version() != VERSION || h.type() != TYPE_WRITE) {
                return false;
            }
            int qpn = h.destQpn();
            SoftQueuePair qp = qpn > 0 && qpn <= MAX_QPS ? byQpn[qpn] : null;
            if (qp == null || qp.peerAddress() == null || h.token() != qp.localToken()
                    || !from.equals(qp.peerAddress()) || !qp.isActive()) {
                return false;
            }
            Responder r = qp.responder();
            if (!r.writePlacement(h, length - HEADER_LENGTH)) {
                return false;
            }
            segment = r.placementSegment();
            offset = r.placementOffset();
            placedQp = qp;
            return true;
        }

        /** The rest of the write in progress: its next packet goes right after this one. */
        @Override
        public boolean predictNext() {
            SoftQueuePair qp = placedQp;
            if (qp == null || !qp.isActive() || !qp.responder().predictNextWrite()) {
                return false;
            }
            segment = qp.responder().placementSegment();
            offset = qp.responder().placementOffset();
            predictedLength = qp.responder().predictedPayloadLength();
            return true;
        }

        @Override
        public int predictedPayloadLength() {
            return predictedLength;
        }

        /** Whether the packet is one {@link #place} accepts for exactly the predicted place. */
        @Override
        public boolean confirm(MemorySegment header, int length, WireAddress from) {
            MemorySegment predictedSegment = segment;
            long predictedOffset = offset;
            return place(header, length, from) && segment == predictedSegment && offset == predictedOffset;
        }

        @Override
        public MemorySegment placementSegment() {
            return segment;
        }

        @Override
        public long placementOffset() {
            return offset;
        }

        @Override
        public void onPlacedPacket(MemorySegment packet, int length, WireAddress from) {
            placedPayload = true;
            try {
                SoftDevice.this.onPacket(packet, length, from);
            } finally {
                placedPayload = false;
            }
        }
    }

    /** Whether the packet being handled had its payload placed by the wire already. */
    boolean placedPayload() {
        return placedPayload;
    }

    @Override
    public String toString() {
        return "SoftDevice{" + name + " at " + address() + "}";
    }
}
