package io.slime4j.endpoint;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.VerbsDevice;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transfer endpoint: one side of a connection between two {@link VerbsDevice}s, with named
 * registered memory, one-sided {@link #read}/{@link #write}/{@link #writeWithImm} of batches,
 * two-sided {@link #send}/{@link #recv}, {@link #immRecv()}, {@link #cancelAll()} and
 * {@link #close()}. Built only on the verbs API.
 *
 * <pre>{@code
 * RdmaEndpoint a = RdmaEndpoint.open(deviceA, EndpointConfig.defaults());
 * RdmaEndpoint b = RdmaEndpoint.open(deviceB, EndpointConfig.defaults());
 * a.register("kv", segA);  b.register("kv", segB);
 * a.connect(EndpointInfo.fromJson(b.info().toJson()));   // exchange info out of band
 * b.connect(EndpointInfo.fromJson(a.info().toJson()));
 * a.write(List.of(Assignment.of("kv", "kv", 0, 4096))).join();
 * TransferFuture r = b.recv("kv", 0, 4096);
 * a.send("kv", 0, 4096).join();  r.join();
 * }</pre>
 *
 * <p>Every operation returns at once with a {@link TransferFuture}; any number may be outstanding
 * from any number of threads. When slots or send-queue credits run out, a call waits up to
 * {@link EndpointConfig#slotTimeout()} and then throws {@link EndpointBusyException}. Misuse — an
 * unknown region name, an offset past the end, a missing access right, a call before connect or
 * after close — throws at the call and posts nothing. See docs/ENDPOINT.md for the ownership model.
 *
 * <p>Send/recv pair in call order: the k-th {@code send} of one side fills the buffer of the k-th
 * {@code recv} of the other. Callers that issue sends (or recvs) from several threads must order
 * them themselves if the pairing matters.
 */
public final class RdmaEndpoint implements AutoCloseable {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final long CLOSE_QUIESCE_MILLIS = 5_000;

    private final EndpointCore core;
    private final ImmRecvPath imm;
    private final IoPath io;
    private final MessagePath messages;
    private final Dispatcher[] dispatchers;
    private final Object lifecycle = new Object();
    private boolean closed;

    private RdmaEndpoint(List<VerbsDevice> rails, EndpointConfig config, EndpointHooks hooks) {
        this(rails, config, hooks, null);
    }

    private RdmaEndpoint(List<VerbsDevice> rails, EndpointConfig config, EndpointHooks hooks, DispatchGroup group) {
        String name = config.name().isEmpty() ? "endpoint-" + NAMES.incrementAndGet() : config.name();
        Transport transport = new Transport(rails, config);
        EndpointCore c;
        try {
            c = new EndpointCore(name, config, transport, hooks);
        } catch (RuntimeException e) {
            transport.close();
            throw e;
        }
        this.core = c;
        this.imm = new ImmRecvPath(core);
        this.io = new IoPath(core, imm);
        this.messages = new MessagePath(core, imm);
        int used = 0;
        while (used < rails.size() && transport.railInUse(used)) {
            used++;
        }
        this.dispatchers = new Dispatcher[used];
        Thread[] threads = new Thread[used];
        for (int r = 0; r < used; r++) {
            dispatchers[r] = new Dispatcher(core, io, messages, imm, r, group);
            threads[r] = dispatchers[r].thread();
        }
        core.dispatchThreads(threads);
        core.dispatchers(dispatchers);
        if (used == 1) {
            core.tracker.drainer(dispatchers[0]); // every op completes through rail 0's queue: its waiters may help
        }
        for (Dispatcher d : dispatchers) {
            d.start();
        }
    }

    /**
     * Creates an endpoint on {@code device}: a protection domain, a completion queue, the io queue
     * pairs and two message queue pairs, and the dispatch thread. The device stays the caller's.
     */
    public static RdmaEndpoint open(VerbsDevice device, EndpointConfig config) {
        return open(device, config, EndpointHooks.DEFAULT);
    }

    static RdmaEndpoint open(VerbsDevice device, EndpointConfig config, EndpointHooks hooks) {
        if (device == null || config == null) {
            throw new IllegalArgumentException("device and config must not be null");
        }
        return new RdmaEndpoint(List.of(device), config, hooks);
    }

    /**
     * Creates an endpoint over several rails (devices, e.g. NICs or UDP sockets, each with its own
     * progress agent): io queue pair (lane) {@code i} lives on rail {@code i % rails.size()}, the
     * message queue pairs on rail 0; each rail gets a protection domain, a completion queue and a
     * dispatch thread, and memory is registered on every rail. The peer must have as many rails,
     * rail {@code r} reaching the peer's rail {@code r}. A lane that fails leaves the rotation (see
     * docs/ENDPOINT.md, "Rails and failover"). The devices stay the caller's.
     *
     * @throws IllegalArgumentException for no rails, a null or repeated device, or a null config
     */
    public static RdmaEndpoint open(List<VerbsDevice> rails, EndpointConfig config) {
        return open(rails, config, EndpointHooks.DEFAULT);
    }

    /**
     * As {@link #open(List, EndpointConfig)}, but the rails' completions are handled by the shared
     * threads of {@code group} (one per rail index for all its endpoints) instead of a dispatch
     * thread per rail of this endpoint. The group stays the caller's; close its endpoints first.
     */
    public static RdmaEndpoint open(List<VerbsDevice> rails, EndpointConfig config, DispatchGroup group) {
        if (group == null) {
            throw new IllegalArgumentException("group must not be null");
        }
        return open(rails, config, EndpointHooks.DEFAULT, group);
    }

    static RdmaEndpoint open(List<VerbsDevice> rails, EndpointConfig config, EndpointHooks hooks) {
        return open(rails, config, hooks, null);
    }

    static RdmaEndpoint open(List<VerbsDevice> rails, EndpointConfig config, EndpointHooks hooks,
                             DispatchGroup group) {
        if (rails == null || rails.isEmpty() || config == null) {
            throw new IllegalArgumentException("rails must name at least one device, and config must not be null");
        }
        if (rails.size() > EndpointConfig.MAX_QPS) {
            throw new IllegalArgumentException("at most " + EndpointConfig.MAX_QPS + " rails, was " + rails.size());
        }
        for (int i = 0; i < rails.size(); i++) {
            if (rails.get(i) == null) {
                throw new IllegalArgumentException("rail " + i + " is null");
            }
            for (int j = 0; j < i; j++) {
                if (rails.get(j) == rails.get(i)) {
                    throw new IllegalArgumentException("rails " + j + " and " + i + " are the same device");
                }
            }
        }
        return new RdmaEndpoint(List.copyOf(rails), config, hooks, group);
    }

    /** The endpoint's name. */
    public String name() {
        return core.name;
    }

    /** Its settings. */
    public EndpointConfig config() {
        return core.config;
    }

    /** Registers {@code segment} under {@code name} with {@link AccessFlags#ALL}. */
    public MemoryRegion register(String name, MemorySegment segment) {
        return register(name, segment, AccessFlags.ALL);
    }

    /**
     * Registers off-heap memory under a name unique in this endpoint. Regions registered after
     * {@link #info()} was sent reach the peer through a fresh {@code info()} and
     * {@link #updatePeer}. Deregistered when the endpoint closes.
     */
    public MemoryRegion register(String name, MemorySegment segment, int accessFlags) {
        core.checkOpen();
        return core.regions.register(core.transport.pds, name, segment, accessFlags);
    }

    /** What the peer needs: queue pairs, window sizes and the regions registered so far. */
    public EndpointInfo info() {
        Transport t = core.transport;
        return new EndpointInfo(core.name, t.device.address(), core.config.messageSlots(), core.config.immWindow(),
                t.ioInfo(), t.meta.localInfo(), t.data.localInfo(), core.regions.describe(), t.railAddresses());
    }

    /**
     * Connects to the peer described by {@code peer} (its {@link #info()}): pre-posts every receive
     * window, then brings each queue pair to RTS. Both sides must connect before transfers flow.
     *
     * @throws IllegalArgumentException if the peer has another number of io queue pairs or more
     *                                  message slots than this endpoint
     */
    public void connect(EndpointInfo peer) {
        synchronized (lifecycle) {
            core.checkOpen();
            if (core.isConnected()) {
                throw new EndpointException("endpoint " + core.name + " is already connected");
            }
            if (peer == null) {
                throw new IllegalArgumentException("peer info must not be null");
            }
            if (peer.ioQps().size() != core.config.qps()) {
                throw new IllegalArgumentException("endpoint " + core.name + " has " + core.config.qps()
                        + " io queue pairs but peer " + peer.name() + " has " + peer.ioQps().size()
                        + ": configure both with the same qps");
            }
            if (peer.rails().size() != core.transport.rails()) {
                throw new IllegalArgumentException("endpoint " + core.name + " has " + core.transport.rails()
                        + " rails but peer " + peer.name() + " has " + peer.rails().size()
                        + ": open both with the same number of rails");
            }
            if (peer.messageSlots() > core.config.messageSlots()) {
                throw new IllegalArgumentException("peer " + peer.name() + " has " + peer.messageSlots()
                        + " message slots, more than the " + core.config.messageSlots() + " of endpoint " + core.name
                        + " (its meta window would be too small): configure at least as many here");
            }
            core.regions.peer(peer.regions());
            try {
                core.transport.connect(peer, core.hooks);
            } catch (RuntimeException e) {
                core.markFailed("connect to " + peer.name() + " failed: " + e.getMessage());
                throw e;
            }
            imm.connected(peer);
            core.markConnected();
            EndpointCore.log().debug("endpoint {} connected to {} at {}", core.name, peer.name(), peer.address());
        }
    }

    /**
     * Replaces the peer's regions with those of a fresh {@code peer.info()} (e.g. registered since connect).
     *
     * @throws IllegalArgumentException if {@code peer} describes another number of rails (its regions
     *                                  would lack the keys of some lanes)
     */
    public void updatePeer(EndpointInfo peer) {
        core.checkOpen();
        if (peer == null) {
            throw new IllegalArgumentException("peer info must not be null");
        }
        if (peer.rails().size() != core.transport.rails()) {
            throw new IllegalArgumentException("endpoint " + core.name + " has " + core.transport.rails()
                    + " rails but the info of peer " + peer.name() + " describes " + peer.rails().size()
                    + ": its regions have no keys for every rail (regions "
                    + peer.regions().keySet().stream().map(n -> "'" + n + "'").toList() + ")");
        }
        core.regions.peer(peer.regions());
    }

    /** Whether {@link #connect} succeeded. */
    public boolean isConnected() {
        return core.isConnected();
    }

    /** Reads every assignment of the batch from the peer's regions into local ones. */
    public TransferFuture read(List<Assignment> batch) {
        return io.submit(OpKind.READ, batch, 0);
    }

    /** Writes every assignment of the batch from local regions into the peer's. */
    public TransferFuture write(List<Assignment> batch) {
        return io.submit(OpKind.WRITE, batch, 0);
    }

    /**
     * Writes the batch, then delivers {@code imm} (all 32 bits are the caller's) to the peer's next
     * {@link #immRecv()} — only after every byte of the batch is in place. An empty batch sends the
     * immediate alone.
     */
    public TransferFuture writeWithImm(List<Assignment> batch, int imm) {
        return io.submit(OpKind.WRITE_WITH_IMM, batch, imm);
    }

    /** Reads one range: a batch of one assignment. */
    public TransferFuture read(String localRegion, long localOffset, String remoteRegion, long remoteOffset,
                               long length) {
        return read(List.of(new Assignment(localRegion, localOffset, remoteRegion, remoteOffset, length)));
    }

    /** Writes one range: a batch of one assignment. */
    public TransferFuture write(String localRegion, long localOffset, String remoteRegion, long remoteOffset,
                                long length) {
        return write(List.of(new Assignment(localRegion, localOffset, remoteRegion, remoteOffset, length)));
    }

    /**
     * Sends {@code length} bytes (at most 2^31-1) of a local region into the buffer of the peer's
     * matching {@link #recv}: completes when they are in place there. A send longer than the
     * matched receive fails on both sides with LOC_LEN_ERR.
     */
    public TransferFuture send(String region, long offset, long length) {
        return messages.send(region, offset, length);
    }

    /**
     * Receives the peer's matching send into {@code length} bytes of a local region (registered with
     * LOCAL_WRITE and REMOTE_WRITE: the peer writes there). {@link TransferFuture#byteCount()} is the
     * sender's length.
     */
    public TransferFuture recv(String region, long offset, long length) {
        return messages.recv(region, offset, length);
    }

    /**
     * The next immediate datum of the peer's write-with-imm, in arrival order: callers and arrivals
     * are matched first come, first served. RC orders arrivals only within one queue pair, so the
     * peer's write-with-imm ops arrive in the order it issued them when they travel on one queue
     * pair (always with {@code qps} 1); with several, ops in flight together may arrive in any order.
     */
    public TransferFuture immRecv() {
        return imm.immRecv();
    }

    /**
     * Completes every live operation as {@link TransferStatus#CANCELLED} at once, walking the
     * in-flight registry (not the slots), and drops queued immediates. Requests already on the wire
     * still run; each op's slots return to their pools only when its requests have completed, and
     * {@link TransferFuture#isSettled()} says when its memory is no longer touched. The endpoint
     * stays usable. Returns how many ops this call cancelled.
     */
    public int cancelAll() {
        return cancel("cancelled by cancelAll() on endpoint " + core.name);
    }

    private int cancel(String why) {
        int n = imm.cancelAll(why); // first, so that no waiting immRecv takes an arrival meanwhile
        return n + core.tracker.cancelAll(why);
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return core.isClosing();
    }

    /**
     * Cancels every live op, flushes the queue pairs, waits (bounded) for the flushes, stops the
     * dispatch thread and releases the endpoint's verbs resources, deregistering its regions. When
     * it returns no request of this endpoint touches memory any more. Idempotent. The device stays open.
     */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        core.markClosing();
        cancel("endpoint " + core.name + " closed");
        io.pool().close();
        messages.sendPool().close();
        messages.recvPool().close();
        imm.wakeWaiters();
        core.transport.flush();
        messages.releaseUnmatched();
        long deadline = System.nanoTime() + CLOSE_QUIESCE_MILLIS * 1_000_000;
        while (!quiescent() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (Dispatcher d : dispatchers) {
            try {
                d.stop(CLOSE_QUIESCE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        core.router.selector().close();
        core.transport.wakeCreditWaiters(); // only now: the dispatcher no longer counts credits
        cancel("endpoint " + core.name + " closed"); // ops that raced with the first pass
        for (SlotPool pool : List.of(io.pool(), messages.sendPool(), messages.recvPool())) {
            for (Slot s : pool.leased()) { // leases whose completions will never come (receives with no data)
                if (s.remaining() > 0) {
                    core.releaser.countDown(pool, s, s.remaining());
                }
            }
        }
        core.regions.closeAll();
        core.transport.close();
        EndpointCore.log().debug("endpoint {} closed", core.name);
    }

    /** Every flushed request has been dispatched: io and send slots are back, window receives gone. */
    private boolean quiescent() {
        Transport t = core.transport;
        return io.pool().free() == io.pool().capacity() && messages.sendPool().free() == messages.sendPool().capacity()
                && t.metaWindow.posted() <= 0 && t.dataWindow.posted() <= 0 && immWindowsEmpty(t);
    }

    private static boolean immWindowsEmpty(Transport t) {
        for (RecvWindow w : t.immWindows) {
            if (w.posted() > 0) {
                return false;
            }
        }
        return true;
    }

    /** For logs. */
    @Override
    public String toString() {
        return "RdmaEndpoint{" + core.name + (core.isClosing() ? ", closed" : core.isConnected() ? ", connected" : "")
                + "}";
    }

    // ------------------------------------------------------------------ package-private, for tests

    Stats stats() {
        return core.stats;
    }

    SlotPool ioPool() {
        return io.pool();
    }

    SlotPool sendPool() {
        return messages.sendPool();
    }

    SlotPool recvPool() {
        return messages.recvPool();
    }

    int inFlight() {
        return core.tracker.inFlight();
    }

    long completedOps() {
        return core.tracker.completedOps();
    }

    Thread dispatchThread() {
        return dispatchers[0].thread();
    }

    /** Waits in which a caller took rail 0's completion queue over ({@link Dispatcher#help}). */
    long helpedWaits() {
        return dispatchers[0].helpedWaits();
    }

    Router router() {
        return core.router;
    }

    Transport transport() {
        return core.transport;
    }

    int peerImmCredits() {
        return imm.peerCredits();
    }

    int queuedImmediates() {
        return imm.queued();
    }

    IoSendQueue[] ioSendQueues() {
        return io.sendQueues();
    }
}
