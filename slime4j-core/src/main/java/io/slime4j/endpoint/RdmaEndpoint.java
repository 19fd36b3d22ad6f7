package io.slime4j.endpoint;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.WcStatus;
import java.lang.foreign.MemorySegment;
import java.util.List;

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
 * a.write(Assignment.local("kv", 0).remote("kv", 0).length(4096)).join();
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
 *
 * <p>Ordering (docs/ENDPOINT.md, "Ordering"): a {@link #send} or {@link #writeWithImm} reaches the
 * peer only after every byte of the one-sided ops posted before it (their call returned first) is
 * in place there, on every lane and rail; {@link #flush()} completes once every earlier one-sided op
 * and send has. One-sided ops are not ordered among themselves.
 */
public final class RdmaEndpoint implements AutoCloseable {
    private final String name;
    private final EndpointConfig config;
    private final EndpointHooks hooks;
    private final Lifecycle lifecycle;
    private final Stats stats;
    private final Regions regions;
    private final Router router;
    private final LaneRecovery lanes;
    private final IoCompletions ioCompletions;
    private final Transport transport;
    private final OpTracker tracker;
    private final Ordering ordering;
    private final ImmRecvPath imm;
    private final SlotPool ioPool;
    private final IoSendQueue[] sendQueues;
    private final IoPath io;
    private final MessagePath messages;
    private final Cancellation cancellation;
    private final Dispatcher[] dispatchers;
    private final Shutdown shutdown;
    /** Serialises connect and close. */
    private final Object connectLock = new Object();
    private boolean closed;

    private RdmaEndpoint(EndpointWiring w) {
        name = w.name;
        config = w.config;
        hooks = w.hooks;
        lifecycle = w.lifecycle;
        stats = w.stats;
        regions = w.regions;
        router = w.router;
        lanes = w.lanes;
        ioCompletions = w.ioCompletions;
        transport = w.transport;
        tracker = w.tracker;
        ordering = w.ordering;
        imm = w.imm;
        ioPool = w.ioPool;
        sendQueues = w.sendQueues;
        io = w.io;
        messages = w.messages;
        cancellation = w.cancellation;
        dispatchers = w.dispatchers;
        shutdown = w.shutdown;
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
        return new RdmaEndpoint(new EndpointWiring(List.of(device), config, hooks, null));
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
        PeerCheck.rails(rails, config);
        return new RdmaEndpoint(new EndpointWiring(List.copyOf(rails), config, hooks, group));
    }

    /** The endpoint's name. */
    public String name() {
        return name;
    }

    /** Its settings. */
    public EndpointConfig config() {
        return config;
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
        lifecycle.checkOpen();
        return regions.register(transport.pds, name, segment, accessFlags);
    }

    /**
     * Deregisters the local region {@code name}: new operations on it are refused at once; it waits
     * up to {@link EndpointConfig#slotTimeout()} for the operations using it to settle (their requests
     * completed: the wire no longer touches the memory), fails those still using it then (FAILED,
     * LOC_PROT_ERR), and invalidates the region's keys on every rail. From then on a peer's access
     * with those keys fails with REM_ACCESS_ERR (never touches the memory), and the name may be
     * registered again. The segment stays the caller's; the peer learns about the change only
     * through a fresh {@link #info()} and its {@link #updatePeer}.
     *
     * @return how many operations still used the region at the bound (and were failed)
     * @throws IllegalArgumentException if no local region has that name
     */
    public int deregister(String name) {
        lifecycle.checkOpen();
        try {
            return regions.deregister(name, config.slotTimeout().toNanos(), tracker::liveOps);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EndpointException("endpoint " + this.name + ": interrupted deregistering region '" + name
                    + "' (it no longer takes new operations; call deregister again to finish)", e);
        }
    }

    /**
     * The memory registered under {@code name} on this endpoint: the segment given to
     * {@link #register}, to read what a peer wrote or fill what it will read. Valid until the
     * endpoint closes (which deregisters it; the memory itself stays the caller's).
     *
     * @throws IllegalArgumentException if no region has that name (the message lists the registered ones)
     */
    public MemorySegment region(String name) {
        lifecycle.checkOpen();
        return regions.local(name, 0, 0, 0, "region(name)").segment();
    }

    /** What the peer needs: queue pairs, window sizes and the regions registered so far. */
    public EndpointInfo info() {
        Transport t = transport;
        return new EndpointInfo(name, t.device.address(), config.messageSlots(), config.immWindow(),
                t.ioInfo(), t.meta.localInfo(), t.data.localInfo(), regions.describe(), t.railAddresses(),
                config.eagerThreshold());
    }

    /**
     * Connects to the peer described by {@code peer} (its {@link #info()}): pre-posts every receive
     * window, then brings each queue pair to RTS. Both sides must connect before transfers flow.
     *
     * @throws IllegalArgumentException if the peer has another number of io queue pairs or more
     *                                  message slots than this endpoint
     */
    public void connect(EndpointInfo peer) {
        synchronized (connectLock) {
            lifecycle.checkOpen();
            if (lifecycle.isConnected()) {
                throw new EndpointException("endpoint " + name + " is already connected");
            }
            PeerCheck.forConnect(name, config, transport.rails(), peer);
            regions.peer(peer.regions());
            try {
                transport.connect(peer, hooks);
            } catch (RuntimeException e) {
                lifecycle.markFailed(WcStatus.GENERAL_ERR, "connect to " + peer.name() + " failed: " + e.getMessage());
                throw e;
            }
            imm.connected(peer);
            messages.eager().connected(peer);
            lifecycle.markConnected();
            Lifecycle.log().debug("endpoint {} connected to {} at {}", name, peer.name(), peer.address());
        }
    }

    /**
     * Replaces the peer's regions with those of a fresh {@code peer.info()} (e.g. registered since connect).
     *
     * @throws IllegalArgumentException if {@code peer} describes another number of rails (its regions
     *                                  would lack the keys of some lanes)
     */
    public void updatePeer(EndpointInfo peer) {
        lifecycle.checkOpen();
        PeerCheck.forUpdate(name, transport.rails(), peer);
        regions.peer(peer.regions());
    }

    /** Whether {@link #connect} succeeded. */
    public boolean isConnected() {
        return lifecycle.isConnected();
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
     * {@link #immRecv()} — only after every byte of the batch, and of every one-sided op posted before
     * this call, is in place (or, for an earlier op that failed, until the wire is done with it: that
     * op's future reports the failure). An empty batch sends the immediate alone (a notification).
     */
    public TransferFuture writeWithImm(List<Assignment> batch, int imm) {
        return io.submit(OpKind.WRITE_WITH_IMM, batch, imm);
    }

    /**
     * A future that completes when every read, write, write-with-imm and send posted before this
     * call (its call returned first) has completed at the peer — like UCX's {@code ucp_ep_flush}. It
     * posts nothing and blocks no thread. It completes FAILED (REM_ABORT_ERR, naming the op) when one
     * of those ops failed or was cancelled; receives are not waited for.
     */
    public TransferFuture flush() {
        return ordering.flush();
    }

    /**
     * Reads one range, a batch of one:
     * {@code read(Assignment.local("kv", 0).remote("kv", 8192).length(4096))}.
     */
    public TransferFuture read(Assignment assignment) {
        return read(List.of(checked(assignment)));
    }

    /**
     * Writes one range, a batch of one:
     * {@code write(Assignment.local("kv", 0).remote("kv", 8192).length(4096))}.
     */
    public TransferFuture write(Assignment assignment) {
        return write(List.of(checked(assignment)));
    }

    private static Assignment checked(Assignment assignment) {
        if (assignment == null) {
            throw new IllegalArgumentException("assignment must not be null");
        }
        return assignment;
    }

    /**
     * Sends {@code length} bytes (at most 2^31-1) of a local region into the buffer of the peer's
     * matching {@link #recv} (the k-th send fills the k-th recv). The data leaves only after every
     * one-sided op posted before this call has completed (so landed, unless its own future says it
     * failed).
     *
     * <p>A send of at most {@link EndpointConfig#eagerThreshold()} bytes is <b>eager</b>: it goes at
     * once into a buffer the peer's endpoint pre-posted and <b>completes when its data has reached the
     * peer's endpoint</b> (acknowledged), whether or not the peer has posted the recv yet — the peer
     * copies it into the recv, or holds it until the recv is posted (as UCX and libfabric's rxm). It
     * may wait (up to {@code slotTimeout}, then {@link EndpointBusyException}) while the peer holds as
     * many eager messages as it offered room for. If the recv is shorter, the recv fails with
     * LOC_LEN_ERR and the send has succeeded. A longer send is a rendezvous: it completes when its data
     * is in place in the recv's buffer, and a send longer than the matched recv fails on both sides
     * with LOC_LEN_ERR.
     */
    public TransferFuture send(String region, long offset, long length) {
        return messages.send(region, offset, length);
    }

    /**
     * Receives the peer's matching send into {@code length} bytes of a local region (registered with
     * LOCAL_WRITE and REMOTE_WRITE: the peer writes there). {@link TransferFuture#byteCount()} is the
     * sender's length. A recv of at most {@link EndpointConfig#eagerThreshold()} bytes sends nothing
     * to the peer unless asked (only an eager message fits it); one whose message arrived already
     * completes within this call.
     */
    public TransferFuture recv(String region, long offset, long length) {
        return messages.recv(region, offset, length);
    }

    /**
     * The next immediate datum of the peer's write-with-imm, in arrival order: callers and arrivals
     * are matched first come, first served. The peer's write-with-imm ops arrive in the order it
     * issued them (a later one waits for the earlier ones to complete).
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
        return cancellation.cancel("cancelled by cancelAll() on endpoint " + name);
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return lifecycle.isClosing();
    }

    /**
     * Cancels every live op, flushes the queue pairs, waits (bounded) for the flushes, stops the
     * dispatch thread and releases the endpoint's verbs resources, deregistering its regions. When
     * it returns no request of this endpoint touches memory any more. Idempotent. The device stays open.
     */
    @Override
    public void close() {
        synchronized (connectLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        shutdown.run();
    }

    /** For logs. */
    @Override
    public String toString() {
        return "RdmaEndpoint{" + name + (lifecycle.isClosing() ? ", closed" : lifecycle.isConnected() ? ", connected" : "")
                + "}";
    }

    // ------------------------------------------------------------------ package-private, for tests

    Stats stats() { return stats; }
    SlotPool ioPool() { return ioPool; }
    SlotPool sendPool() { return messages.sendPool(); }
    SlotPool recvPool() { return messages.recvPool(); }
    int inFlight() { return tracker.inFlight(); }
    long completedOps() { return tracker.completedOps(); }

    Thread dispatchThread() { return dispatchers[0].thread(); }
    /** Waits in which a caller took rail 0's completion queue over ({@link Dispatcher#help}). */
    long helpedWaits() { return java.util.Arrays.stream(dispatchers).mapToLong(Dispatcher::helpedWaits).sum(); }
    /** Batches of completions the rails' dispatch threads handled themselves ({@link Dispatcher#ownBatches}). */
    long dispatchThreadBatches() { return java.util.Arrays.stream(dispatchers).mapToLong(Dispatcher::ownBatches).sum(); }

    Router router() { return router; }
    LaneRecovery laneRecovery() { return lanes; }
    IoCompletions ioCompletions() { return ioCompletions; }
    Transport transport() { return transport; }
    int peerImmCredits() { return imm.peerCredits(); }
    int queuedImmediates() { return imm.queued(); }
    IoSendQueue[] ioSendQueues() { return sendQueues; }
}
