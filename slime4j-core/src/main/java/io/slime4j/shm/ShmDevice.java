package io.slime4j.shm;

import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A verbs device for peers on the same host: queue pairs talk through rings in shared memory
 * ({@code memfd}) and RDMA WRITE, READ and SEND data moves with one copy straight between the two
 * sides' registered memory (by the peer's responder; for a WRITE or READ into a region the peer
 * exports in its {@link ExportTable}, with nothing earlier outstanding, by the requester itself).
 * Every queue pair's requester and responder run under one progress lock, taken by whichever
 * thread gets there: a posting thread publishes its request into the ring itself (or copies it,
 * as above), a thread polling a completion queue runs a duty cycle when the queue is empty (it takes
 * the peer's answers and executes the peer's requests without a hand-off), and the device's agent
 * thread does the rest. Idle, the agent spins briefly and then sleeps on a futex doorbell that
 * posting threads and peers ring; with {@link ShmConfig#busyPoll()} it spins, unless a waiter
 * spins on a completion queue already (then that waiter drives progress and the agent only keeps
 * the timers). See docs/SHM.md.
 */
public final class ShmDevice implements VerbsDevice {
    private static final Logger LOG = LoggerFactory.getLogger(ShmDevice.class);
    private static final Map<Long, ShmDevice> LOCAL = new ConcurrentHashMap<>();
    private static final SecureRandom RANDOM = new SecureRandom();
    /**
     * How recent a poller's duty cycle must be to count as spinning, and a busy-polling agent's
     * first park while a waiter spins and drives progress instead.
     */
    private static final long QUIET_NANOS = 50_000;
    /**
     * Look-ins in a row that may find the progress lock held by a driving waiter and skip their cycle;
     * the next one waits for the lock (at the backoff's 200 µs, about 1.6 ms).
     */
    static final int MAX_MISSED_LOOKS = 8;
    /** How fine {@link #lastHelpAt} is: a poller stores it when it moved this much (inside {@link #QUIET_NANOS}). */
    private static final long HELP_STAMP_NANOS = 5_000;
    /** A busy-polling agent's longest park while a waiter drives progress ({@link LookInBackoff}). */
    private static final long QUIET_MAX_NANOS = 200_000;
    /** How often an idle agent runs a duty cycle for the timers of outstanding requests. */
    private static final long TIMER_TICK_NANOS = 50_000;
    /**
     * How often a duty cycle runs every queue pair, not only those marked ready ({@link ReadyMask}):
     * a bound on a missed mark, as long as an idle agent's longest sleep by default.
     */
    static final long SWEEP_NANOS = 10_000_000;

    private final ShmConfig config;
    private final long id;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment file;
    private final String address;
    private final RegionTable regions = new RegionTable();
    private final ExportTable exports;
    private final PeerMappings mappings = new PeerMappings();
    private final Map<String, PeerDevice> peers = new ConcurrentHashMap<>();
    private final ShmCounters counters = new ShmCounters();
    private final List<ShmQueuePair> qps = new CopyOnWriteArrayList<>();
    private final ShmQueuePair[] byQpn = new ShmQueuePair[Layout.MAX_QPS];
    /** The queue pairs a duty cycle runs (holder of the progress lock, but for marks). */
    private final ReadyMask ready;
    private final ConcurrentLinkedQueue<ShmQueuePair> closing = new ConcurrentLinkedQueue<>();
    private final Thread agent;
    /** Held by whichever thread runs requesters and responders: the agent, a poller or a poster. */
    private final ProgressRight progress = new ProgressRight(this::pendingCycle, this::unparkAgent);
    /** Waiters busy-polling a completion queue of this device: while any does, the agent does not spin. */
    private final AtomicInteger spinners = new AtomicInteger();
    /** Completion queues whose waiters are owed a wake-up (holder of the progress lock only). */
    private final ArrayList<ShmCompletionQueue> toWake = new ArrayList<>();
    private volatile boolean closed;
    /** Some queue pair had requests outstanding at the end of the last duty cycle. */
    private volatile boolean timersRunning;
    /** When a poller last ran a duty cycle ({@link #help}). */
    private volatile long lastHelpAt = System.nanoTime() - (1L << 40);
    /** The agent's parks while waiters drive (the agent's own). */
    private final LookInBackoff lookIns = new LookInBackoff(QUIET_NANOS, QUIET_MAX_NANOS);
    /** How many times the agent parked while waiters drove, and for how long in all it asked to (for tests). */
    private volatile long quietParks;
    private volatile long quietParkNanos;
    /** Times the agent waited for the progress lock (written by the agent only; for tests). */
    private volatile long lockWaits;

    private ShmDevice(ShmConfig config) {
        ShmNative.requireAvailable();
        this.config = config;
        long i;
        do {
            i = RANDOM.nextLong();
        } while (i == 0);
        this.id = i;
        file = SharedMemory.allocate(Layout.DEV_SIZE, arena);
        exports = new ExportTable(file);
        ready = new ReadyMask(file, SWEEP_NANOS, System.nanoTime());
        SharedMemory.Allocation a = SharedMemory.find(file.address(), file.byteSize());
        file.set(ValueLayout.JAVA_INT, Layout.DEV_PID, ShmNative.pid());
        file.set(ValueLayout.JAVA_INT, Layout.DEV_UID, ShmNative.euid());
        file.set(ValueLayout.JAVA_LONG, Layout.DEV_ID, id);
        Layout.setVolatile(file, Layout.DEV_MAGIC, Layout.MAGIC);
        address = new ShmAddress(ShmNative.pid(), a.fd(), a.inode()).toString();
        LOCAL.put(id, this);
        agent = Thread.ofPlatform().daemon().name("slime4j-shm-" + config.name()).unstarted(this::run);
        agent.start();
    }

    /** Opens a device with the given settings. */
    public static ShmDevice open(ShmConfig config) {
        return new ShmDevice(config);
    }

    /** Why the engine cannot run on this machine, or null when it can. */
    public static String unavailability() {
        return ShmNative.unavailability();
    }

    static ShmDevice localDevice(long id) {
        return LOCAL.get(id);
    }

    long id() { return id; }
    RegionTable regions() { return regions; }
    ExportTable exports() { return exports; }
    PeerMappings mappings() { return mappings; }
    ShmCounters countersSet() { return counters; }
    boolean isClosed() { return closed; }

    /** The settings this device was opened with. */
    public ShmConfig config() {
        return config;
    }

    void checkOpen(String op) {
        if (closed) {
            throw new VerbsException(op + " on shm device " + config.name() + ": the device is closed");
        }
    }

    /** Rings this device's own doorbell, marking no queue pair ready (it closes). */
    void wakeup() {
        Doorbell.ring(file);
    }

    /** Marks {@code qp} ready and rings this device's doorbell (a posting thread, a state change). */
    void wakeup(ShmQueuePair qp) {
        Doorbell.ring(file, qp.qpn());
    }

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public String address() {
        return address;
    }

    /**
     * 16 MiB: a request is one copy between the two processes' memory ({@link DirectCopy}, or the
     * responder's), and the JVM's copy of a few MiB runs at memory speed only whole (a 16 MiB write
     * in 1 MiB requests moved about 0.6x a plain copy of 16 MiB, whole about 0.9-1.1x;
     * docs/PERFORMANCE.md, "The fifth 2026-11-27 round"). Not more: a copy inside a post holds this
     * device's progress lock, stalling its other queue pairs, for as long as it runs (about 1 ms at
     * 16 MiB). Not a limit: larger requests work.
     */
    @Override
    public int preferredRequestBytes() {
        return PREFERRED_REQUEST_BYTES;
    }

    /** {@link #preferredRequestBytes()}; also what one responder turn copies before it lets the device's other queue pairs run. */
    public static final int PREFERRED_REQUEST_BYTES = 16 << 20;

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        checkOpen("allocateProtectionDomain");
        return new ShmProtectionDomain(this);
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity) {
        checkOpen("createCompletionQueue");
        return new ShmCompletionQueue(this, capacity);
    }

    @Override
    public synchronized QueuePair createQueuePair(ProtectionDomain pd, QpConfig qpConfig, CompletionQueue sendCq,
                                                  CompletionQueue recvCq) {
        checkOpen("createQueuePair");
        if (qpConfig == null) {
            throw new IllegalArgumentException("QpConfig must not be null");
        }
        if (qpConfig.mtu() == QpConfig.MTU_FROM_PATH) {
            // no datagrams here: the MTU only sizes the packet counters, so take the largest default
            qpConfig = qpConfig.toBuilder().mtu(QpConfig.DEFAULT_MAX_MTU).build();
        }
        if (!(pd instanceof ShmProtectionDomain spd) || spd.device() != this) {
            throw new IllegalArgumentException("protection domain " + pd + " is not one of shm device " + name());
        }
        if (!(sendCq instanceof ShmCompletionQueue scq) || !(recvCq instanceof ShmCompletionQueue rcq)) {
            throw new IllegalArgumentException("completion queues must be created by shm device " + name());
        }
        int qpn = 0;
        for (int n = 1; n < Layout.MAX_QPS; n++) {
            if (byQpn[n] == null) {
                qpn = n;
                break;
            }
        }
        if (qpn == 0) {
            throw new VerbsException("shm device " + name() + " has " + (Layout.MAX_QPS - 1) + " queue pairs already");
        }
        ShmQueuePair qp = new ShmQueuePair(this, qpn, spd, qpConfig, scq, rcq);
        ready.cover(qpn);
        long dir = Layout.DEV_DIR + qpn * Layout.DIR_ENTRY;
        file.set(ValueLayout.JAVA_INT, dir, qp.file.fd);
        file.set(ValueLayout.JAVA_LONG, dir + 8, qp.file.inode);
        Layout.setRelease(file, dir + 16, qp.token);
        byQpn[qpn] = qp;
        qps.add(qp);
        return qp;
    }

    /**
     * Hands a closed queue pair to the agent, the only thread that runs its requester and responder
     * (flushing releases each request's region uses; two threads flushing at once would release
     * them twice). Only once the agent has stopped does the caller retire it itself: the flag
     * {@code closed} is set while the agent still finishes its last pass.
     */
    void destroyQueuePair(ShmQueuePair qp) {
        closing.add(qp);
        wakeup();
        if (closed && !agent.isAlive()) {
            retire();
        }
    }

    private synchronized void retire() {
        progress.acquire(); // flushing runs the requester and responder: no poller may run them meanwhile
        try {
            ShmQueuePair qp;
            while ((qp = closing.poll()) != null) {
                if (!qps.remove(qp)) {
                    continue;
                }
                try {
                    qp.handleError();
                } finally {
                    qp.counters().retire(); // its counts stay in the device's totals
                }
                Layout.setRelease(file, Layout.DEV_DIR + qp.qpn() * Layout.DIR_ENTRY + 16, 0);
                byQpn[qp.qpn()] = null;
                ready.drop(qp.qpn());
                qp.file.close();
            }
        } finally {
            wakeDeferred(); // the flushes' completions
            progress.release();
        }
    }

    /** The peer device at {@code address}, mapped once. */
    PeerDevice peer(String peerAddress) {
        PeerDevice p = peers.get(peerAddress);
        if (p == null) {
            p = PeerDevice.attach(peerAddress, mappings);
            PeerDevice raced = peers.putIfAbsent(peerAddress, p);
            if (raced != null) {
                p.close();
                p = raced;
            }
        }
        return p;
    }

    /** Maps queue pair {@code qpn} of {@code peer}, which must carry {@code token}. */
    QpFile peerQpFile(PeerDevice peer, int qpn, long token) {
        if (qpn <= 0 || qpn >= Layout.MAX_QPS) {
            throw new ShmException("no queue pair " + qpn + " at " + peer.address);
        }
        long dir = Layout.DEV_DIR + qpn * Layout.DIR_ENTRY;
        if (Layout.getAcquire(peer.file, dir + 16) != token) {
            throw new ShmException("queue pair " + qpn + " at " + peer.address + " is not the one announced");
        }
        int fd = peer.file.get(ValueLayout.JAVA_INT, dir);
        long inode = peer.file.get(ValueLayout.JAVA_LONG, dir + 8);
        QpFile f = QpFile.view(mappings.map(peer.pid, fd, inode));
        if (f.token() != token) {
            throw new ShmException("queue pair " + qpn + " at " + peer.address + " was replaced");
        }
        return f;
    }

    /**
     * Queue-pair turns the duty cycles ran ({@code [0]}), and those that found work only because a
     * sweep ran the queue pair ({@code [1]}: missed marks, {@link ReadyMask}).
     */
    long[] turns() {
        progress.acquire();
        try {
            return new long[] {ready.turns(), ready.sweepFinds()};
        } finally {
            progress.release();
        }
    }

    /** Whether the current thread holds the progress lock (runs requesters and responders now). */
    boolean progressing() {
        return progress.isHeldByCurrentThread();
    }

    /**
     * One duty cycle on the calling thread (a completion queue's poller), unless another thread
     * runs one now or the device is closed; how much work it did.
     */
    int help() {
        return help(System.nanoTime());
    }

    /**
     * {@link #help()} at {@code now}, a clock reading the caller took anyway (a spinning waiter's): it
     * must be fresh, as the cycle's timers (RNR retries, timeouts) count from it.
     */
    int help(long now) {
        if (closed || !progress.tryAcquire()) {
            return 0;
        }
        int work = 0;
        try {
            if (!closed) {
                if (now - lastHelpAt >= HELP_STAMP_NANOS) { // a volatile store per stamp, not per cycle
                    lastHelpAt = now;
                }
                work = cycle(now);
            }
        } finally {
            work += progress.release(); // cycles run for posters count as work: the caller's clock is older
        }
        return work;
    }

    /**
     * Publishes {@code qp}'s posted requests into its ring on the posting thread, unless another
     * thread holds the progress lock; whether it did (else the caller leaves them to a duty cycle,
     * {@link #leaveToCycle}).
     */
    boolean publishNow(ShmQueuePair qp) {
        if (closed || !progress.tryAcquire()) {
            return false;
        }
        try {
            boolean published = !closed && qp.requester.publishNow();
            if (published && qp.requester.outstanding()) {
                ready.activate(qp.qpn()); // no mark comes for its timers: the cycles run it from now on
                if (!timersRunning) { // written once, not per request
                    timersRunning = true; // the agent's next wait is short: this request's timeout is watched
                }
            }
            return published;
        } catch (RuntimeException e) {
            counters.increment(Counter.AGENT_ERRORS);
            LOG.error("shm device {}: publishing on the posting thread failed", name(), e);
            return false;
        } finally {
            wakeDeferred(); // requests the requester copied itself completed at once
            progress.release();
        }
    }

    /** How many times the agent waited for the progress lock another thread held (for tests). */
    long lockWaits() {
        return lockWaits;
    }

    /** The right to run duty cycles (for tests that hold it as a driving waiter would). */
    ProgressRight progressRight() {
        return progress;
    }

    /** How many times the agent parked while waiters drove the device (a look-in each; for tests). */
    long quietParks() {
        return quietParks;
    }

    /** The time those parks asked for, in all (for tests). */
    long quietParkNanos() {
        return quietParkNanos;
    }

    /**
     * A waiter starts (+1) or stops (-1) spinning on one of this device's completion queues; counted
     * only where the agent reads it (busy-polling: it rests while a waiter drives).
     */
    void spinning(int delta) {
        if (config.busyPoll()) {
            spinners.addAndGet(delta);
        }
    }

    /**
     * Runs the turn of every queue pair that has work ({@link ReadyMask}; holder of the progress
     * lock); records whether timers are running.
     */
    private int cycle(long now) {
        int work = 0;
        boolean busy = false;
        progress.takingMarks(); // then take them: what a poster left before now is seen here
        ready.collect(now, qps);
        for (int w = 0, n = ready.words(); w < n; w++) {
            for (long bits = ready.active(w); bits != 0; bits &= bits - 1) {
                int qpn = (w << 6) | Long.numberOfTrailingZeros(bits);
                ShmQueuePair qp = byQpn[qpn];
                if (qp == null) {
                    ready.drop(qpn);
                    continue;
                }
                try {
                    int did = qp.doWork(now);
                    work += did;
                    busy |= qp.busy();
                    ready.ran(qpn, did, qp.staysAfterTurn(did, now));
                } catch (RuntimeException e) { // one queue pair's failure does not stop the others' turns
                    counters.increment(Counter.AGENT_ERRORS);
                    LOG.error("shm device {}: progress error on {}: the queue pair fails", name(), qp, e);
                    qp.modifyToError(); // not retried turn after turn: its requests are flushed
                    ready.ran(qpn, 0, true); // the flush runs next cycle
                } finally {
                    wakeDeferred(); // once per turn: the first woken waiter would preempt this thread
                }
            }
        }
        timersRunning = busy;
        return work;
    }

    /**
     * A posting thread could not publish its requests ({@link #publishNow} returned false): marks
     * {@code qp} ready and rings. On a busy-polling device, whose agent may rest while waiters drive
     * ({@link LookInBackoff}), it leaves the queue pair to a duty cycle instead, the holder's of the
     * progress lock or one this thread runs now ({@link ProgressRight#leave}), and then rings.
     * (Elsewhere the ring wakes the agent, which sleeps announced; posters running
     * cycles there cost the default device's 32 B message rate 13%: docs/SHM.md.)
     */
    void leaveToCycle(ShmQueuePair qp) {
        if (!config.busyPoll()) {
            wakeup(qp);
            return;
        }
        ReadyMask.mark(file, qp.qpn());
        progress.leave();
        Doorbell.ring(file); // as before, for an agent that does not rest (a peer not attached yet wants cycles)
    }

    /** Ends a rest of the agent's at once (work left to the holders of the progress lock that they passed on). */
    private void unparkAgent() {
        LockSupport.unpark(agent);
    }

    /** The cycle a holder of the progress lock runs for work a poster left it ({@link ProgressRight}). */
    private void pendingCycle() {
        if (closed) {
            return;
        }
        try {
            cycle(System.nanoTime()); // each turn wakes its own waiters
        } catch (RuntimeException e) {
            counters.increment(Counter.AGENT_ERRORS);
            LOG.error("shm device {}: a duty cycle for a posting thread's requests failed", name(), e);
        }
    }

    /** Wakes {@code cq}'s waiters when this queue pair's turn ends (holder of the progress lock). */
    void wakeLater(ShmCompletionQueue cq) {
        toWake.add(cq);
    }

    private void wakeDeferred() {
        for (int i = 0; i < toWake.size(); i++) {
            toWake.get(i).wakeDeferred();
        }
        toWake.clear();
    }

    void onOverflow(ShmCompletionQueue cq) {
        for (ShmQueuePair qp : qps) {
            if (qp.sendCq == cq || qp.recvCq == cq) {
                qp.modifyToError();
            }
        }
    }

    @Override
    public Counters counters() {
        return counters;
    }

    // ---------------------------------------------------------------- the agent

    private void run() {
        long idleSince = System.nanoTime();
        int missedLooks = 0;
        while (!closed) {
            int seen = Doorbell.value(file); // before the cycle: a ring during it is not lost
            long now = System.nanoTime();
            if (!progress.tryAcquire()) {
                if (config.busyPoll() && waitersDrive(now) && missedLooks < MAX_MISSED_LOOKS && closing.isEmpty()
                        && !progress.handedOff()) {
                    // A look-in while a waiter drives, and another thread holds the right (the waiter, most
                    // often): its cycles run what this one would (every queue pair with work or timers).
                    // Waiting for the lock instead parked this thread and made the holder's next release
                    // unpark it, a futex call and two context switches on its core per look
                    // (docs/PERFORMANCE.md, "The 2026-11-28 sixth round"). The agent waits for the lock when
                    // a holder handed it work left over (ProgressRight), when queue pairs wait to be retired
                    // (its work alone), and after a few misses in a row.
                    missedLooks++;
                    restWhileDriven();
                    continue;
                }
                lockWaits++; // the agent's own field: no lost update
                progress.acquire();
            }
            missedLooks = 0;
            int work;
            try {
                work = cycle(now);
                if (!closing.isEmpty()) {
                    retire();
                }
            } catch (RuntimeException e) {
                work = 0;
                counters.increment(Counter.AGENT_ERRORS);
                LOG.error("shm device {}: agent error", name(), e);
            } finally {
                progress.release();
            }
            if (work > 0) {
                idleSince = now;
                continue;
            }
            idle(seen, idleSince);
        }
    }

    /** Whether a waiter drives this device now: one spins on a completion queue, or one helped just now. */
    private boolean waitersDrive(long now) {
        return spinners.get() > 0 || now - lastHelpAt < QUIET_NANOS;
    }

    /** A look-in's rest while waiters drive the device, backing off ({@link LookInBackoff}). */
    private void restWhileDriven() {
        long park = lookIns.next();
        quietParks++; // the agent's own fields: no lost update
        quietParkNanos += park;
        LockSupport.parkNanos(this, park);
    }

    /**
     * Waits, without the progress lock, until the doorbell moves past {@code seen} (everyone with
     * work for this device rings it: its posting threads when they could not publish themselves,
     * its peers when they published or answered), or the timers of outstanding requests are due.
     * The wait reads one word, so posting threads and pollers find the progress lock free.
     */
    private void idle(int seen, long idleSince) {
        long start = System.nanoTime();
        int turns = 0;
        while (!closed && Doorbell.value(file) == seen) {
            long now = System.nanoTime();
            if (config.busyPoll() && waitersDrive(now)) {
                // A waiter spins on a completion queue and runs the duty cycles itself: a second spinning
                // thread would only take its core. Look in now and then for the timers, without announcing
                // sleep, so peers ringing the doorbell make no futex call. The looks back off while the
                // waiter keeps driving: each one preempts it on a machine with no spare core (at one every
                // 50 µs the two agents of a busy 32 B message rate took 17% of the samples; PERFORMANCE.md,
                // "The 2026-11-28 fifth round").
                restWhileDriven();
                return;
            }
            lookIns.reset();
            if (timersRunning && now - start >= TIMER_TICK_NANOS) {
                return;
            }
            if (!config.busyPoll() && now - idleSince >= config.spin().toNanos()) {
                // Requests outstanding: timers and peer liveness need a short bound; otherwise sleep long.
                long maxSleep = config.maxSleep().toNanos();
                Doorbell.await(file, seen, timersRunning ? Math.min(maxSleep, 200_000) : maxSleep);
                return;
            }
            // An idle spin yields now and then: on a machine with fewer cores than runnable threads the
            // threads this agent hands to or waits for (the poster, the dispatcher, the peer's agent) get
            // the core; that keeps the round trip short. It is a trade: under EEVDF (Linux 6.17 on) a
            // yield forfeits the rest of the slice, and a yielded agent waits in the run queue where a
            // ring cannot wake it (it is not asleep); docs/PERFORMANCE.md, "the idle yield", measures both.
            if (++turns % 64 == 0) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        Layout.setIntVolatile(file, Layout.DEV_CLOSED, 1);
        wakeup();
        try {
            agent.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (agent.isAlive()) {
            LOG.warn("shm device {}: agent thread did not stop within 10 s", name());
            LockSupport.parkNanos(100_000_000);
        }
        for (ShmQueuePair qp : qps) {
            qp.modifyToError();
            closing.add(qp);
        }
        retire(); // under the progress lock: a poller's duty cycle in progress ends first, none starts (closed)
        LOCAL.remove(id);
        for (PeerDevice p : peers.values()) {
            p.close();
        }
        mappings.close();
        exports.close(); // every export withdrawn; regions deregistered after this have nothing left to withdraw
        // A peer that checked this device's closed flag just before it was set may still be copying into one of
        // its regions: wait for it (as deregistration does), so that a region closed after this device is free.
        long deadline = System.nanoTime() + ShmRegion.DEREGISTER_WAIT_NANOS;
        int running;
        while ((running = exports.copiesRunning()) > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(50_000);
        }
        if (running > 0) {
            LOG.warn("shm device {}: {} copies of peers into its exported regions still counted after {} s"
                    + " (a peer killed in the middle of one?); closing anyway", name(), running,
                    ShmRegion.DEREGISTER_WAIT_NANOS / 1_000_000_000L);
        }
        arena.close();
    }

    @Override
    public String toString() {
        return "ShmDevice{" + name() + ", " + address + "}";
    }
}
