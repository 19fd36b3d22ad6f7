package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;

import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counters;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.VerbsException;
import io.slime4j.wire.Wire;
import io.slime4j.wire.WireAddress;
import io.slime4j.wire.WirePort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
    static final int MAX_QPS = 1 << 16;

    private final String name;
    private final SoftConfig config;
    private final WirePort port;
    private final KeyTable keyTable = new KeyTable();
    private final CounterSet counters = new CounterSet();
    private final TimerWheel timers;
    private final PacketOutput output;
    private final ProgressAgent agent;
    private final AgentCommands commands;
    private final DutyCycle duty;
    /** {@link #requestedAckOwed}: written by the cycle's holder at the end of each cycle. */
    private volatile boolean requestedAckOwed;
    /**
     * Longest a busy-polling device's waiters go without a receive that reads the sockets to the end
     * (which then fires the timers, {@link #receiveMayEnd}) while they keep running cycles: a stream
     * whose socket never empties still has its timers run and its ACKs read this often. As long as an
     * idle agent goes without a full cycle ({@link ReadinessGate#TIMER_NANOS}). When the waiters stop
     * after a receive that ended early, the agent's rest is short ({@link #requestedAckOwed}).
     */
    static final long DRAIN_EVERY_NANOS = ReadinessGate.TIMER_NANOS;
    /**
     * The receive of the cycle under way may end early at all ({@link #receiveMayEnd}): a busy-polling
     * device, within {@link #DRAIN_EVERY_NANOS} of the last receive that read the sockets to the end.
     * Set once as the receive begins; the holder's.
     */
    private boolean receiveMayEndThisCycle;
    /**
     * When a cycle's receive last read the sockets to the end (or to its batch's limit): the holder's.
     * Set in the past at construction, so that the first receive reads them to the end whatever the
     * clock's origin.
     */
    private long lastDrainedNanos = System.nanoTime() - DRAIN_EVERY_NANOS - 1;
    /**
     * The receive of the last cycle that received ended early for a waiter ({@link #receiveMayEnd}):
     * datagrams may wait unread ({@link #requestedAckOwed}) until the next receive. The holder's.
     */
    private boolean receiveEndedEarly;
    /** Waiters of completion queues, woken once at the end of the cycle that completed their work. */
    private final CompletionWakeups wakeups = new CompletionWakeups();
    private final MemorySegment scratch8 = Arena.ofAuto().allocate(8, 8);
    private final TimerWheel.Handler timeoutHandler =
            (t, now) -> ((SendSegment) t).owner.onTimeout((SendSegment) t, now);
    private volatile SoftQueuePair[] queuePairs = new SoftQueuePair[0];
    private final SoftQueuePair[] byQpn = new SoftQueuePair[MAX_QPS + 1];
    private final PacketDispatcher dispatcher;
    /** Where a waiter of a default device blocks on its sockets itself; null when busy-polling or without descriptors. */
    private final WaiterBlock waiterBlock;
    /** Whether the last cycle ended with nothing timed pending (no timer armed, no command queued, no queue pair owing an ACK or holding unacknowledged data); written by the cycle's holder. */
    private volatile boolean quietAfterCycle = true;
    /** {@link #quietAfterCycle} for a waiter's block ({@link #blockingDrive}), built once. */
    private final java.util.function.BooleanSupplier quietNow = () -> quietAfterCycle;
    /** Whether arrivals come as a stream, by how the waiters' drives ended; see {@link #waiterMayBlock}. */
    private final StreamDetector streams = new StreamDetector(System::nanoTime);
    /** Whether the last post came behind requests of its queue pair not yet retired (a stream); see {@link #waiterMayBlock}. */
    private volatile boolean lastPostBehind;
    private int nextQpn = 1;
    private final JmxCounters jmx;
    private volatile boolean closed;

    private SoftDevice(WirePort port, SoftConfig config, ProgressGroup group) {
        this(port, config, group, true);
    }

    /** {@code driven}: attached to a progress agent; else the caller drives {@link #doWork} itself. */
    private SoftDevice(WirePort port, SoftConfig config, ProgressGroup group, boolean driven) {
        this.port = port;
        this.config = config;
        this.name = config.name().isEmpty() ? "soft-" + NAMES.incrementAndGet() : config.name();
        long tick = config.timerTick().toNanos();
        this.timers = new TimerWheel(tick, 4096, System.nanoTime());
        this.output = new PacketOutput(port, counters, config.coalesceLimit());
        this.dispatcher = new PacketDispatcher(byQpn, counters, port.maxPacketSize(), this::receiveMayEnd);
        this.agent = group != null ? group.agent() : new ProgressAgent(name, config.busySpin(), config.maxIdlePark());
        port.onReceivable(agent::wakeup);
        this.duty = new DutyCycle(this::doWork, this::doPostedWork, agent.busySpin(), e -> { // as the agent does with its own
            counters.increment(io.slime4j.verbs.Counter.AGENT_ERRORS);
            LOG.warn("a thread driving {} while it waited caught an exception; continuing", name, e);
        }, agent::endRest);
        // a device of a group shares its agent with others, whose sockets that agent waits on: no waiter place
        this.waiterBlock = !driven || group != null || agent.busySpin() || !config.blockingWaiters() ? null
                : WaiterBlock.forPort(port, config.waiterSpin().toNanos(), counters);
        this.commands = new AgentCommands(name, agent, duty, this::nudge);
        this.jmx = JmxCounters.register(counters, "io.slime4j:type=SoftDevice,name=" + JmxCounters.quote(name));
        if (!driven) {
            commands.detach(); // no thread: commands run on their callers, the caller runs the duty cycle
            return;
        }
        try {
            agent.attach(this);
        } catch (RuntimeException e) {
            if (jmx != null) {
                jmx.unregister();
            }
            if (waiterBlock != null) {
                waiterBlock.close();
            }
            throw e;
        }
        LOG.debug("device {} open at {}", name, port.localAddress().text());
    }

    /**
     * Opens a device that no progress thread drives: its owner calls {@link #doWork} with a clock
     * of its own (tests that move time by assignment). Not for production use.
     */
    static SoftDevice openUndriven(WirePort port, SoftConfig config) {
        return new SoftDevice(port, config, null, false);
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
        qp.registerJmx(JmxCounters.register(qp.countersSet(), "io.slime4j:type=QueuePair,device="
                + JmxCounters.quote(name) + ",qpn=" + qpn));
        queuePairs = CopyOnWrite.with(queuePairs, qp);
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
            qp.countersSet().retire(); // its counts stay in the device's totals
            synchronized (this) {
                if (byQpn[qp.qpn()] == qp) {
                    byQpn[qp.qpn()] = null;
                    queuePairs = CopyOnWrite.without(queuePairs, qp);
                }
            }
        });
    }

    /** Queue pairs open on this device now (a destroyed one leaves once its agent has flushed it). */
    public int openQueuePairs() {
        return queuePairs.length;
    }

    @Override
    public Counters counters() {
        return counters;
    }

    /** The engine's protocol counters (retransmissions, ACKs, drops...): see {@link SoftCounter}. */
    public SoftCounters protocolCounters() {
        return counters.soft();
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
        commands.detach();
        duty.seize(); // nor does a waiter of a busy-polling device, from now on
        // the agent no longer drives this device: this thread is now the only producer of completions
        for (SoftQueuePair qp : queuePairs) {
            qp.enterError();
        }
        commands.runQueued();
        for (SoftQueuePair qp : queuePairs) {
            qp.unregisterJmx();
        }
        if (jmx != null) {
            jmx.unregister();
        }
        if (waiterBlock != null) {
            waiterBlock.close(); // before the port: no thread is left blocked on its descriptors
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

    /** The receive path, which the port hands datagrams to. */
    PacketDispatcher dispatcher() {
        return dispatcher;
    }

    /** The transmit buffer and the send path of the device's port. */
    PacketOutput output() {
        return output;
    }

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


    MemorySegment scratch8() {
        return scratch8;
    }

    WireAddress resolve(String address) {
        return port.resolve(address);
    }

    /**
     * Wakes the agent for work that needs no cycle soon when a waiter drives the device (a receive
     * posted to a queue pair in ERR, which a cycle flushes); a waiter blocked on the sockets is left
     * blocked.
     */
    void wakeup() {
        agent.wakeup();
    }

    /**
     * Wakes the agent, also from a busy-polling agent's rest, and a waiter blocked on the sockets:
     * something must run soon (see {@link ProgressAgent#nudge}).
     */
    void nudge() {
        agent.nudge();
        WaiterBlock b = waiterBlock;
        if (b != null) {
            b.nudge(); // kept for a block about to begin: the agent skips a device its waiter drives
        }
    }

    /** Ends the block of a waiter blocked on this device's sockets, if one is; no system call otherwise. */
    void wakeBlockedWaiter() {
        WaiterBlock b = waiterBlock;
        if (b != null) {
            b.wake();
        }
    }

    /**
     * Whether threads that wait for this device's completions run its cycles: busy-polling
     * ({@link DutyCycle#waitersDrive}), or a default device whose waiters block on its sockets
     * ({@link WaiterBlock}). Its agent then stands aside while they do, and a receiver's reply
     * usually carries the ACK its request asked for ({@link AckScheduler}).
     */
    boolean waitersDrive() {
        return duty.waitersDrive() || waiterBlock != null;
    }

    /**
     * When an ACK the peer asked for at once waits a cycle for a reply to carry it
     * ({@link AckScheduler}): always on a busy-polling device, while a waiter drives on a default
     * device with a {@link WaiterBlock}, never otherwise (the agent takes a stream in).
     */
    java.util.function.BooleanSupplier acksWaitForReplies() {
        if (duty.waitersDrive()) {
            return () -> true;
        }
        return waiterBlock != null ? duty::drivenByWaiter : () -> false;
    }

    /** Where a waiter of this default device may block on its sockets ({@link WaiterBlock}), or null. */
    WaiterBlock waiterBlock() {
        return waiterBlock;
    }

    /**
     * How a waiter holding the {@link WaiterBlock} drives this device for one completion queue whose
     * readiness {@code ready} tells; built once per queue, so a wait allocates nothing. After a
     * cycle that did no work it blocks on the sockets for as long as the agent would
     * ({@link SoftConfig#maxIdlePark()} while something timed is pending), or up to
     * {@link #QUIET_BLOCK_NANOS} when the last cycle found the device quiet; it ends when the
     * queue is ready or the block closes. Null where the device has no waiter place.
     */
    BlockingDrive blockingDrive(java.util.function.BooleanSupplier ready) {
        WaiterBlock b = waiterBlock;
        if (b == null) {
            return null;
        }
        long park = Math.min(config.maxIdlePark().toNanos(), QUIET_BLOCK_NANOS);
        return new BlockingDrive(() -> ready.getAsBoolean() || b.isClosed(),
                remaining -> b.block(remaining, quietNow, QUIET_BLOCK_NANOS, park, ready));
    }

    /** A {@link #blockingDrive}: when the drive ends, and what it does between cycles with no work. */
    record BlockingDrive(java.util.function.BooleanSupplier done, DutyCycle.Idle idle) { }

    /** Runs {@code drive} on the calling thread (the {@link WaiterBlock}'s holder) until it is done or {@code deadline}. */
    boolean driveBlocking(BlockingDrive drive, long deadline) throws InterruptedException {
        return duty.driveUntil(drive.done(), deadline, drive.idle());
    }

    /**
     * Whether a waiter may take the {@link WaiterBlock} now: the agent is idle (its last cycle found
     * nothing to do, or it rests while waiters drive), the last post was not made behind
     * outstanding requests, and recent waiters' drives did not find everything there already
     * ({@link StreamDetector}). In a stream of posts the agent sends them together (GSO runs, one
     * system call for many) while the posting thread goes on, each keeping a core busy; a waiter
     * driving the device would leave every post to its poster's own cycle, a system call each
     * (4 KiB writes, 16 outstanding: about half the rate). In a stream of arrivals the agent takes
     * them in while the waiting thread handles the earlier ones. There the waiter parks as before.
     */
    boolean waiterMayBlock() {
        return !lastPostBehind && agent.standsIdle() && !streams.streaming();
    }

    /**
     * The waiter holding the {@link WaiterBlock} left it, having {@code blocked} on the sockets or not
     * ({@link StreamDetector}). Others waiting outside it: the agent takes
     * over for them now rather than after its rest ({@link ProgressAgent#nudge}). Something timed
     * pending (an ACK asked for at once, a timer): the agent, which may be blocked on the sockets
     * for up to a second, runs the next cycle (a wake-up only when it is blocked; a resting agent
     * sends it at the rest's end).
     */
    void waiterLeft(boolean othersOutside, boolean blocked) {
        streams.driveEnded(blocked);
        if (othersOutside) {
            agent.nudge();
        } else if (!quietAfterCycle || requestedAckOwed) {
            agent.wakeup();
        }
    }

    /**
     * A waiter was refused the {@link WaiterBlock} (a stream, or the place taken) and parks: an
     * agent resting while waiters drove takes the cycles back now, not after its rest.
     */
    void waiterRefused() {
        if (agent.resting()) { // read after the waiter counted itself outside: a Dekker pair with the agent's rest
            agent.endRest();
        }
    }

    /**
     * Whether threads wait on this device's completion queues outside the {@link WaiterBlock} while
     * no waiter drives it: nobody but the agent takes their datagrams in, so it does not rest.
     */
    boolean waitsForAgent() {
        WaiterBlock b = waiterBlock;
        return b != null && b.anyOutside() && !duty.drivenByWaiter();
    }

    /** Whether the last cycle, whoever ran it, ended with nothing timed pending (no timer armed, no command queued, no queue pair owing an ACK or holding unacknowledged data). Any thread. */
    boolean quietAfterCycle() {
        return quietAfterCycle;
    }

    /**
     * The longest block of a waiter on a quiet device's sockets: a bound for an interrupt to be seen
     * and for a device closing under it, not a period (a cycle that arms a timer wakes it).
     */
    static final long QUIET_BLOCK_NANOS = 10_000_000;

    /**
     * Whether, at the end of the last cycle, a queue pair owed an ACK the peer asked for at once
     * and that waits for the next cycle (busy-polling, {@link AckScheduler}), or the last receive
     * ended early for a waiter and may have left datagrams unread ({@link #receiveMayEnd}): the
     * agent then does not stand aside for long, and runs the next cycle itself if nobody else does
     * ({@link ProgressAgent}). Any thread.
     */
    boolean requestedAckOwed() {
        return requestedAckOwed;
    }

    /**
     * A request was posted to a send queue. A default device wakes its agent, unless a waiter
     * drives the device or the agent stands aside for waiters ({@link WaiterBlock}): then the
     * posting thread runs a cycle that only sends, so the request leaves now (the waiter takes the
     * ACK in), as UCX sends from the caller's thread, except a post {@code behind} requests of its
     * queue pair not yet retired while no waiter drives: a stream of posts, which the agent takes
     * over (it sends them together while this thread goes on, and the thread's next wait leaves the
     * device to it: {@link ProgressAgent#standsIdle}). On a device whose waiters drive it
     * (busy-polling), the posting thread runs a cycle itself unless another thread runs one: the
     * request leaves now, without a hand-off, where its agent may be resting while the
     * application's threads drive ({@link ProgressAgent}). A cycle held by another thread sends it,
     * or, if it had passed the queue pair already, its holder runs one more when it gives the right
     * back ({@link DutyCycle}). With {@code more} (more will follow) the request may wait for the
     * next cycle instead ({@link DutyCycle#holdForPoster}): on a busy-polling device behind
     * outstanding requests, so that a burst of posts leaves together; on a default device whose
     * agent rests while no waiter drives, if not behind others, so that it leaves with what the
     * poster posts next (the endpoint's credit returns ride with the reply that follows them).
     * {@link PostRoute} decides.
     */
    void onPosted(boolean more, boolean behind) {
        if (waiterBlock != null && behind != lastPostBehind) {
            lastPostBehind = behind; // a volatile write only when it changes
        }
        boolean busyPolls = duty.waitersDrive();
        if (!busyPolls) {
            agent.wakeup(); // then read whether a waiter drives: a Dekker pair with the agent's rest
        }
        switch (PostRoute.of(busyPolls, more, behind, !busyPolls && duty.drivenByWaiter(),
                !busyPolls && agent.resting())) {
            case AGENT -> { } // woken above, or running: its next cycle sends it
            case AGENT_TAKES_STREAM -> agent.endRest();
            case HOLD -> duty.holdForPoster(); // counted as POSTS_HELD by the cycle that sends it
            // held elsewhere: the holder runs one more if its cycle passed this queue pair
            case RUN -> duty.runForPoster();
        }
    }

    /** Who runs this device's duty cycle now: its agent, or a waiter when it busy-polls. */
    DutyCycle duty() {
        return duty;
    }

    /** Runs {@code command} on the agent thread (or here, if the agent no longer drives this device). */
    void runOnAgent(Runnable command) {
        commands.run(command);
    }

    /** Returns once every memory access the agent may have begun before this call has ended (see {@link AgentCommands}). */
    void awaitQuiescence() {
        commands.awaitQuiescence();
    }

    /** The receive window this device advertises to each peer, in bytes of packets of {@code packetBytes}. */
    long receiveWindowBytes(int packetBytes) {
        return ReceiveWindow.bytes(port.receiveBufferSize(), queuePairs.length, packetBytes);
    }

    /** The largest datagram the port sends or receives (header included). */
    int maxPacketSize() {
        return port.maxPacketSize();
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
        commands.detach(); // nothing drives this device any more: commands run on their callers
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
        return cycle(nowNanos, true);
    }

    /**
     * The cycles a posting thread runs ({@link #onPosted}): one without the receive, so the request
     * leaves before any other system call, then, on a busy-polling device, a whole one, so that a
     * thread that posts keeps taking the ACKs in (a sender that posts ahead of its window and waits
     * only when it is full otherwise fell into lock-step with its waits: 1 KiB busy-polling rate
     * 30-37 k msg/s against 95-136 k). On a default device only the first: its waiter or its agent
     * takes the ACKs in. Also what a default agent runs for wake-ups that reached it resting.
     */
    int doPostedWork(long nowNanos) {
        int work = cycle(nowNanos, false);
        if (!duty.waitersDrive()) {
            // a default device's poster (its waiter drives, or its agent stands aside): the poster waits
            // next or the agent takes the ACKs in, so its post costs no receive (two system calls a trip)
            return work;
        }
        return work + cycle(nowNanos, true);
    }

    private int cycle(long nowNanos, boolean receive) {
        wakeups.begin();
        try {
            int heldPosts = duty.takeHeldPosts(); // the posts held for this cycle, counted before any leaves
            if (heldPosts > 0) {
                counters.add(SoftCounter.POSTS_HELD, heldPosts);
            }
            dispatcher.now(nowNanos);
            int work = commands.runQueued();
            boolean drained = false;
            if (receive) {
                receiveMayEndThisCycle = duty.waitersDrive() && nowNanos - lastDrainedNanos <= DRAIN_EVERY_NANOS;
                receiveEndedEarly = false;
                work += port.receive(dispatcher, RECEIVE_BATCH);
                drained = !receiveEndedEarly;
                if (drained) {
                    lastDrainedNanos = nowNanos;
                }
            }
            if (drained) {
                // retransmit timeouts, like the tail-loss probe, act only on what the sockets told: a cycle that
                // only sends, or whose receive ended early for a waiter, may run while ACKs wait unread (a
                // spurious resend for each)
                work += timers.poll(nowNanos, timeoutHandler);
            }
            boolean ackOwed = false;
            boolean quiet = true;
            for (SoftQueuePair qp : queuePairs) {
                work += qp.doWork(nowNanos, drained);
                ackOwed |= qp.owesRequestedAck();
                quiet &= qp.quiet();
            }
            requestedAckOwed = ackOwed || receiveEndedEarly;
            noteQuiet(quiet && timers.isEmpty() && commands.isEmpty());
            // the threads waiting for the cycle's completions, once each, before the held datagrams
            // leave: a round trip's waiter does not wait for the ACK's system call (quiet A/B in
            // docs/PERFORMANCE.md: p50 52 -> 44 us against 66 us when woken after the flush)
            wakeups.flush();
            output.flush(); // coalesced packets leave at the end of the turn that sent them
            port.flush(); // the burst's held datagrams leave now (UDP GSO)
            return work;
        } finally {
            wakeups.flush(); // what a cycle that threw still owes (nothing otherwise)
            output.flushCounts(); // what the cycle sent, counted once (also if it threw)
        }
    }

    /**
     * Records whether the cycle ended quiet, for a waiter's next block ({@link #driveBlocking}); a
     * cycle that made a quiet device busy (a post armed a timer) wakes a waiter blocked for long.
     */
    private void noteQuiet(boolean quiet) {
        if (quiet != quietAfterCycle) {
            quietAfterCycle = quiet;
        }
        if (!quiet && waiterBlock != null && waiterBlock.blockedLong()) {
            waiterBlock.wake();
        }
    }

    /**
     * Whether the receive of the cycle under way may end now, the rest left queued for the next
     * cycle ({@link PacketDispatcher#receiveMore}): on a busy-polling device, in a waiter's cycle
     * that has what the waiter waits for ({@link DutyCycle#waiterSatisfied}), while a receive read
     * the sockets to the end at most {@link #DRAIN_EVERY_NANOS} ago. The waiter returns without
     * first polling the empty sockets (about 1 µs of a round trip each way, docs/PERFORMANCE.md,
     * fifteenth round). A default device's waiter drains them as before: there an early end was
     * measured slower (eleventh round: round trip p50 40.6 to 44.8 µs). The holder's, inside its
     * cycle's receive.
     */
    private boolean receiveMayEnd() {
        if (!receiveMayEndThisCycle || !duty.waiterSatisfied()) {
            return false;
        }
        receiveEndedEarly = true;
        return true;
    }

    /** Completion-queue wake-ups owed by the running cycle (its holder only). */
    CompletionWakeups wakeups() {
        return wakeups;
    }

    /** The thread of the agent driving this device (null before it started); for tests. */
    Thread agentThread() {
        return agent.thread();
    }

    /** The agent's turns so far, idle ones included; for tests. */
    long agentCycles() {
        return agent.cycles();
    }

    /** The port this device sends and receives on (the agent waits on it when idle). */
    WirePort port() {
        return port;
    }

    @Override
    public String toString() {
        return "SoftDevice{" + name + " at " + address() + "}";
    }
}
