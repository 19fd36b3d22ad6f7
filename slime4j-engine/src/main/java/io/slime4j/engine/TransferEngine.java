package io.slime4j.engine;

import io.slime4j.endpoint.BootstrapListener;
import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.Bootstrap;
import io.slime4j.endpoint.DispatchGroup;
import io.slime4j.endpoint.EndpointBusyException;
import io.slime4j.endpoint.EndpointClosedException;
import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.endpoint.EndpointException;
import io.slime4j.endpoint.RdmaEndpoint;
import io.slime4j.endpoint.TransferFuture;
import io.slime4j.engine.directory.Directory;
import io.slime4j.engine.directory.DirectoryException;
import io.slime4j.engine.directory.PeerRecord;
import io.slime4j.soft.ProgressGroup;
import io.slime4j.shm.TransportChoice;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import io.slime4j.wire.Wire;
import io.slime4j.wire.udp.UdpConfig;
import java.util.Optional;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transfer engine per process: it publishes itself in a {@link Directory} under its name and
 * reaches any other engine by name. {@link #register} names memory once for every peer;
 * {@link #read}, {@link #write}, {@link #writeWithImm}, {@link #send}, {@link #recv} and
 * {@link #immRecv} take the peer's name and return the endpoint's {@link TransferFuture}.
 *
 * <pre>{@code
 * try (Directory dir = Directories.open("redis://127.0.0.1:6379");
 *      TransferEngine a = TransferEngine.builder("A", dir).start()) {
 *     a.register("kv", segment);
 *     a.write("B", List.of(Assignment.local("kv", 0).remote("kv", 0).length(4096))).join();  // finds B, connects, writes
 * }
 * }</pre>
 *
 * <p>The first operation towards a peer looks its record up, dials its bootstrap listener and
 * handshakes (both incarnations are checked, so nothing reaches a stale process); the connection
 * is then shared by every thread. A peer on this host is reached through shared memory (one
 * {@code ShmDevice} for all of them), others over the network, unless {@link Builder#transport}
 * says otherwise (docs/ENGINE.md, "Transports"). The engine has one network device per rail, one progress thread (a
 * {@link ProgressGroup}) and one dispatch thread per rail (a {@link DispatchGroup}), plus an accept
 * thread and a heartbeat thread, whatever the number of peers. A peer whose control connection
 * ends (its process died), whose record shows another incarnation, or whose record has not been
 * seen for a lease is torn down: its outstanding ops are cancelled and the next op looks it up
 * again. {@link #close} unpublishes the record and cancels everything outstanding. See
 * docs/ENGINE.md.
 */
public final class TransferEngine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransferEngine.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String name;
    private final long incarnation;
    private final Directory directory;
    private final EngineSettings settings;
    private final Wire wire;
    private final boolean ownsWire;
    private final ProgressGroup progress;
    private final DispatchGroup dispatch;
    private final EngineDevices devices;
    private final BootstrapListener listener;
    private final Thread acceptor;
    private final ScheduledExecutorService heartbeat;
    private final Connections conns;
    private final Dialer dialer;
    private final Heartbeat beats;
    private volatile PeerRecord record;
    private volatile boolean closed;
    private volatile boolean unpublished;

    private TransferEngine(String name, Directory directory, EngineSettings settings, Wire wire,
                           TransportChoice transport) throws Exception {
        this.name = name;
        long inc;
        do {
            inc = RANDOM.nextLong();
        } while (inc == 0);
        this.incarnation = inc;
        this.directory = directory;
        this.settings = settings;
        this.ownsWire = wire == null;
        this.wire = wire != null ? wire : new UdpWire(UdpConfig.defaults());
        this.progress = settings.progressIdlePark() == null ? ProgressGroup.create("engine-" + name)
                : ProgressGroup.create("engine-" + name, false, settings.progressIdlePark());
        this.dispatch = DispatchGroup.create("engine-" + name);
        EngineDevices ds = null;
        try {
            ds = new EngineDevices(name, incarnation, settings, this.wire, progress, transport);
            this.listener = Bootstrap.listen(settings.bindHost(), 0, 512); // many peers dial at once
        } catch (RuntimeException e) {
            if (ds != null) {
                ds.close();
            }
            dispatch.close();
            if (ownsWire) {
                this.wire.close();
            }
            throw e;
        }
        this.devices = ds;
        TransportSelector selector = ds.selector;
        this.conns = new Connections(name, incarnation, settings, ds.rails, ds.shm, selector, dispatch, () -> closed);
        this.beats = new Heartbeat(conns, directory, () -> record);
        this.dialer = new Dialer(conns, directory, beats::noteDirectoryError, this::checkOpen);
        this.record = new PeerRecord(name, incarnation, hostForUrl(settings.bindHost()) + ":" + listener.port(),
                settings.hostId(), Map.of(), selector.hostText(), selector.offered());
        this.acceptor = Thread.ofPlatform().daemon().name("slime4j-engine-" + name + "-accept")
                .unstarted(new Acceptor(conns, listener));
        this.heartbeat = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon()
                .name("slime4j-engine-" + name + "-heartbeat").unstarted(r));
        try {
            directory.publish(record, settings.lease());
        } catch (DirectoryException e) {
            unpublished = true; // nothing to take back (and the directory just failed)
            close();
            throw e;
        }
        acceptor.start();
        long every = settings.heartbeat().toMillis();
        heartbeat.scheduleWithFixedDelay(beats::beat, every, every, TimeUnit.MILLISECONDS);
    }

    static String hostForUrl(String host) {
        return host.contains(":") ? "[" + host + "]" : host;
    }

    /** A builder for the engine {@code name} (1..128 of {@code A-Z a-z 0-9 . _ -}) publishing in {@code directory}. */
    public static Builder builder(String name, Directory directory) {
        return new Builder(PeerRecord.checkName(name), directory);
    }

    /** The engine's name. */
    public String name() {
        return name;
    }

    /** This run's incarnation: a random nonzero number, another one after a restart. */
    public long incarnation() {
        return incarnation;
    }

    /** The record it publishes. */
    public PeerRecord record() {
        return record;
    }

    /** The directory it publishes in. */
    public Directory directory() {
        return directory;
    }

    /**
     * A transport counter of the engine's devices, summed over its rails and its shm device (e.g.
     * retransmits): every peer's traffic, since the engine started.
     */
    public long counter(Counter counter) {
        long sum = 0;
        for (Counters c : devices.counters().values()) {
            sum += c.get(counter);
        }
        return sum;
    }

    /** The names of the peers connected now. */
    public List<String> connectedPeers() {
        return conns.links.connections().stream().map(c -> c.peer).sorted().toList();
    }

    /**
     * How the current connection to {@code peer} runs ({@link PeerTransport#SHM} to a same-host
     * peer unless a setting says otherwise: docs/ENGINE.md, "Transports"); empty when not connected.
     */
    public Optional<PeerTransport> transport(String peer) {
        Connection c = conns.links.connections().stream().filter(x -> x.peer.equals(peer)).findFirst().orElse(null);
        return c == null ? Optional.empty() : Optional.of(c.transport);
    }

    /** The transport setting the engine started with. */
    public TransportChoice transportSetting() {
        return conns.transports.setting();
    }

    /**
     * Every device's counters by device name: the network rails ({@code NAME-railR}), then the shm
     * device ({@code NAME-shm}) if the engine has one.
     */
    public Map<String, Counters> deviceCounters() {
        return devices.counters();
    }

    /** Registers {@code segment} under {@code name} with {@link AccessFlags#ALL}. */
    public void register(String regionName, MemorySegment segment) {
        register(regionName, segment, AccessFlags.ALL);
    }

    /**
     * Registers off-heap memory under a name unique in this engine, for every peer: with each
     * connected peer at once (waiting, bounded by the connect timeout, until it has the new keys),
     * and with each later one when it connects. The record is published again with the region.
     */
    public void register(String regionName, MemorySegment segment, int accessFlags) {
        checkOpen();
        conns.register(regionName, segment, accessFlags,
                sizes -> record = record.withRegions(sizes));
        try {
            directory.publish(record, settings.lease());
        } catch (DirectoryException e) {
            beats.noteDirectoryError(e); // the next heartbeat publishes it
        }
    }

    // ------------------------------------------------------------------ operations

    /** Reads every assignment of the batch from {@code peer}'s regions into local ones. */
    public TransferFuture read(String peer, List<Assignment> batch) {
        return op(peer, e -> e.read(batch));
    }

    /** Writes every assignment of the batch from local regions into {@code peer}'s. */
    public TransferFuture write(String peer, List<Assignment> batch) {
        return op(peer, e -> e.write(batch));
    }

    /** Writes the batch, then delivers {@code imm} to {@code peer}'s next {@link #immRecv} for this engine. */
    public TransferFuture writeWithImm(String peer, List<Assignment> batch, int imm) {
        return op(peer, e -> e.writeWithImm(batch, imm));
    }

    /** Sends bytes of a local region into the buffer of {@code peer}'s matching {@link #recv} from this engine. */
    public TransferFuture send(String peer, String region, long offset, long length) {
        return op(peer, e -> e.send(region, offset, length));
    }

    /** Receives {@code peer}'s matching {@link #send} into a local region. */
    public TransferFuture recv(String peer, String region, long offset, long length) {
        return op(peer, e -> e.recv(region, offset, length));
    }

    /** The next immediate of {@code peer}'s write-with-imm towards this engine. */
    public TransferFuture immRecv(String peer) {
        return op(peer, RdmaEndpoint::immRecv);
    }

    /**
     * Runs {@code call} on the peer's connection, made first if need be. A connection found torn
     * down or failed at the call is dropped and the call made once more on a fresh one.
     */
    private TransferFuture op(String peer, Function<RdmaEndpoint, TransferFuture> call) {
        checkOpen();
        Connection c = dialer.connection(peer);
        try {
            return call.apply(c.endpoint);
        } catch (EndpointBusyException | PeerUnavailableException e) {
            throw e;
        } catch (EndpointException e) {
            conns.lost(c, "connection to " + peer + " failed: " + e.getMessage());
            checkOpen();
            return call.apply(dialer.connection(peer).endpoint);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new EndpointClosedException("engine " + name + " is closed");
        }
    }

    /**
     * Unpublishes the record (best effort, bounded), stops the threads and tears every connection
     * down, cancelling what is outstanding. Idempotent. The directory stays the caller's.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (heartbeat != null) {
            heartbeat.shutdownNow();
        }
        try {
            if (!unpublished) {
                directory.unpublish(record);
            }
        } catch (RuntimeException e) {
            LOG.warn("engine {}: unpublishing failed (the record ends with its lease): {}", name, e.getMessage());
        }
        listener.close();
        if (acceptor != null) {
            try {
                acceptor.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Connection c : conns.links.clear()) {
            c.close("engine " + name + " closed");
        }
        dispatch.close();
        devices.close();
        if (ownsWire) {
            wire.close();
        }
    }

    @Override
    public String toString() {
        return "TransferEngine{" + name + "#" + Long.toHexString(incarnation) + (closed ? ", closed" : "") + "}";
    }

    /** Settings of a {@link TransferEngine}. */
    public static final class Builder {
        private final String name;
        private final Directory directory;
        private Duration lease = Duration.ofSeconds(10);
        private Duration heartbeat;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private String bindHost = "127.0.0.1";
        private int rails = 1;
        private EndpointConfig endpointConfig = EndpointConfig.builder().ioSlots(32).messageSlots(8).immWindow(16).sendQueueDepth(128)
                .build();
        private String hostId;
        private Wire wire;
        private Duration progressIdlePark;
        private TransportChoice transport;

        private Builder(String name, Directory directory) {
            if (directory == null) {
                throw new IllegalArgumentException("an engine needs a directory");
            }
            this.name = name;
            this.directory = directory;
        }

        /** How long the record lives without a heartbeat (default 10 s, at least 1 s). */
        public Builder lease(Duration v) {
            lease = v;
            return this;
        }

        /** How often the record is published again and peers' records checked (default a third of the lease). */
        public Builder heartbeat(Duration v) {
            heartbeat = v;
            return this;
        }

        /** The bound on a lookup plus handshake (default 5 s). */
        public Builder connectTimeout(Duration v) {
            connectTimeout = v;
            return this;
        }

        /** The address the bootstrap listener and the UDP devices bind, which peers reach (default 127.0.0.1). */
        public Builder bindHost(String v) {
            bindHost = v;
            return this;
        }

        /** Devices (rails) per engine (default 1); peers need the same number. */
        public Builder rails(int v) {
            rails = v;
            return this;
        }

        /** The settings of each connection's endpoint (its name is the engine's). */
        public Builder endpointConfig(EndpointConfig v) {
            endpointConfig = v;
            return this;
        }

        /** The host id published (default this host's name). */
        public Builder hostId(String v) {
            hostId = v;
            return this;
        }

        /**
         * The longest park of the idle progress thread (default the soft engine's, 50 µs: lowest
         * latency). Many engines in one process on few cores want more (e.g. 1 ms), or their idle
         * progress threads eat the cores.
         */
        public Builder progressIdlePark(Duration v) {
            progressIdlePark = v;
            return this;
        }

        /**
         * How peers are reached (default {@link TransportChoice#fromEnvironment()}: the setting
         * {@code slime4j.transport} / {@code SLIME4J_TRANSPORT}, else {@code auto}): {@code auto}
         * uses shared memory to a peer on this host and the network to others; {@code network} and
         * {@code shm} force one (docs/ENGINE.md, "Transports").
         */
        public Builder transport(TransportChoice v) {
            transport = v;
            return this;
        }

        /**
         * The wire the network rails use (default a UDP wire of the engine's own); stays the
         * caller's. It carries only the network transport: same-host peers still connect over shm
         * unless {@link #transport} is {@code NETWORK}.
         */
        public Builder wire(Wire v) {
            wire = v;
            return this;
        }

        /**
         * Opens the devices and the listener, publishes the record and starts the threads.
         *
         * @throws IllegalArgumentException for settings out of range, a malformed transport setting, or
         *                                  transport shm forced where it cannot run
         * @throws DirectoryException       if the first publish fails
         */
        public TransferEngine start() {
            try {
                return new TransferEngine(name, directory, EngineSettings.of(lease, heartbeat, connectTimeout, bindHost,
                        rails, endpointConfig, hostId, progressIdlePark), wire,
                        transport != null ? transport : TransportChoice.fromEnvironment());
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("engine " + name + " could not start: " + e, e);
            }
        }
    }
}
