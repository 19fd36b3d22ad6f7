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
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A verbs device for peers on the same host: queue pairs talk through rings in shared memory
 * ({@code memfd}) and RDMA WRITE, READ and SEND data moves with one copy straight between the two
 * sides' registered memory. One progress agent thread per device runs every queue pair's requester
 * and responder; idle, it spins briefly and then sleeps on a futex doorbell that posting threads
 * and peers ring ({@link ShmConfig#busyPoll()} keeps it spinning). See docs/SHM.md.
 */
public final class ShmDevice implements VerbsDevice {
    private static final Logger LOG = LoggerFactory.getLogger(ShmDevice.class);
    private static final Map<Long, ShmDevice> LOCAL = new ConcurrentHashMap<>();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final ShmConfig config;
    private final long id;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment file;
    private final String address;
    private final RegionTable regions = new RegionTable();
    private final PeerMappings mappings = new PeerMappings();
    private final Map<String, PeerDevice> peers = new ConcurrentHashMap<>();
    private final ShmCounters counters = new ShmCounters(null);
    private final List<ShmQueuePair> qps = new CopyOnWriteArrayList<>();
    private final ShmQueuePair[] byQpn = new ShmQueuePair[Layout.MAX_QPS];
    private final ConcurrentLinkedQueue<ShmQueuePair> closing = new ConcurrentLinkedQueue<>();
    private final Thread agent;
    /** Completion queues whose waiters are owed a wake-up (agent thread only). */
    private final ArrayList<ShmCompletionQueue> toWake = new ArrayList<>();
    private volatile boolean closed;

    private ShmDevice(ShmConfig config) {
        ShmNative.requireAvailable();
        this.config = config;
        long i;
        do {
            i = RANDOM.nextLong();
        } while (i == 0);
        this.id = i;
        file = SharedMemory.allocate(Layout.DEV_SIZE, arena);
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

    /** Rings this device's own doorbell (posting threads, state changes). */
    void wakeup() {
        Doorbell.ring(file);
    }

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public String address() {
        return address;
    }

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
        if (qpConfig != null && qpConfig.mtu() == QpConfig.MTU_FROM_PATH) {
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
        ShmQueuePair qp;
        while ((qp = closing.poll()) != null) {
            if (!qps.remove(qp)) {
                continue;
            }
            qp.handleError();
            Layout.setRelease(file, Layout.DEV_DIR + qp.qpn() * Layout.DIR_ENTRY + 16, 0);
            byQpn[qp.qpn()] = null;
            qp.file.close();
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

    boolean onAgentThread() {
        return Thread.currentThread() == agent;
    }

    /** Wakes {@code cq}'s waiters when the agent ends this queue pair's turn (agent thread). */
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
        long spinNanos = config.spin().toNanos();
        long maxSleep = config.maxSleep().toNanos();
        long idleSince = System.nanoTime();
        int idleSpins = 0;
        while (!closed) {
            int seen = Doorbell.value(file);
            long now = System.nanoTime();
            int work = 0;
            boolean busy = false;
            try {
                for (ShmQueuePair qp : qps) {
                    work += qp.doWork(now);
                    busy |= qp.busy();
                    wakeDeferred(); // once per turn: the first woken waiter would preempt the agent
                }
                if (!closing.isEmpty()) {
                    retire();
                }
            } catch (RuntimeException e) {
                counters.increment(Counter.AGENT_ERRORS);
                LOG.error("shm device {}: agent error", name(), e);
            } finally {
                wakeDeferred();
            }
            if (work > 0) {
                idleSince = now;
                continue;
            }
            if (config.busyPoll() || now - idleSince < spinNanos) {
                // An idle spin yields now and then: on a machine with fewer cores than runnable threads the
                // threads this agent hands to or waits for (the poster, the dispatcher, the peer's agent) get
                // the core; that keeps the round trip short. It is a trade: under EEVDF (Linux 6.17 on) a
                // yield forfeits the rest of the slice, and a yielded agent waits in the run queue where a
                // ring cannot wake it (it is not asleep); docs/PERFORMANCE.md, "the idle yield", measures both.
                if (++idleSpins % 64 == 0) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
                continue;
            }
            // Requests outstanding: timers and peer liveness need a short bound; otherwise sleep long.
            Doorbell.await(file, seen, busy ? Math.min(maxSleep, 200_000) : maxSleep);
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
        retire();
        LOCAL.remove(id);
        for (PeerDevice p : peers.values()) {
            p.close();
        }
        mappings.close();
        arena.close();
    }

    @Override
    public String toString() {
        return "ShmDevice{" + name() + ", " + address + "}";
    }
}
