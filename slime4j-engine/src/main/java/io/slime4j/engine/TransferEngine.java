package io.slime4j.engine;

import io.slime4j.endpoint.BootstrapListener;
import io.slime4j.endpoint.BootstrapMessage;
import io.slime4j.endpoint.BootstrapChannel;
import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.Bootstrap;
import io.slime4j.endpoint.BootstrapException;
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
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.Wire;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * is then shared by every thread. The engine has one device per rail, one progress thread (a
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
    private final Settings settings;
    private final Wire wire;
    private final boolean ownsWire;
    private final ProgressGroup progress;
    private final DispatchGroup dispatch;
    private final List<SoftDevice> devices = new ArrayList<>();
    private final BootstrapListener listener;
    private final Thread acceptor;
    private final ScheduledExecutorService heartbeat;
    private final PeerLinks links;
    private final PeerWatch watch;
    private final Object regionLock = new Object();
    private final Map<String, Region> regions = new LinkedHashMap<>();
    private volatile PeerRecord record;
    private volatile boolean closed;
    private volatile String lastDirectoryError;

    private record Region(MemorySegment segment, int access) {
    }

    /** The engine's settings (see {@link Builder}). */
    record Settings(Duration lease, Duration heartbeat, Duration connectTimeout, String bindHost, int rails,
                    EndpointConfig endpointConfig, String hostId, Duration progressIdlePark) {
    }

    private TransferEngine(String name, Directory directory, Settings settings, Wire wire) throws Exception {
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
        this.links = new PeerLinks(name);
        this.watch = new PeerWatch(settings.lease().toMillis());
        this.progress = settings.progressIdlePark() == null ? ProgressGroup.create("engine-" + name)
                : ProgressGroup.create("engine-" + name, false, settings.progressIdlePark());
        this.dispatch = DispatchGroup.create("engine-" + name);
        try {
            for (int r = 0; r < settings.rails(); r++) {
                String address = this.wire instanceof UdpWire ? "udp:" + hostForUrl(settings.bindHost()) + ":0"
                        : "inproc:" + name + "-" + Long.toHexString(incarnation) + "-" + r;
                devices.add(SoftDevice.open(this.wire, address, SoftConfig.builder().name(name + "-rail" + r).build(),
                        progress));
            }
            this.listener = Bootstrap.listen(settings.bindHost(), 0, 512); // many peers dial at once
        } catch (RuntimeException e) {
            devices.forEach(SoftDevice::close);
            dispatch.close();
            if (ownsWire) {
                this.wire.close();
            }
            throw e;
        }
        this.record = new PeerRecord(name, incarnation, hostForUrl(settings.bindHost()) + ":" + listener.port(),
                settings.hostId(), Map.of());
        this.acceptor = Thread.ofPlatform().daemon().name("slime4j-engine-" + name + "-accept").unstarted(this::acceptLoop);
        this.heartbeat = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon()
                .name("slime4j-engine-" + name + "-heartbeat").unstarted(r));
        try {
            directory.publish(record, settings.lease());
        } catch (DirectoryException e) {
            close();
            throw e;
        }
        acceptor.start();
        long every = settings.heartbeat().toMillis();
        heartbeat.scheduleWithFixedDelay(this::beat, every, every, TimeUnit.MILLISECONDS);
    }

    private static String hostForUrl(String host) {
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

    /** The names of the peers connected now. */
    public List<String> connectedPeers() {
        return links.connections().stream().map(c -> c.peer).sorted().toList();
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
        List<Connection> cs;
        synchronized (regionLock) {
            if (regions.containsKey(regionName)) {
                throw new IllegalArgumentException("engine " + name + " already has a region '" + regionName + "'");
            }
            if (regionName == null || segment == null) {
                throw new IllegalArgumentException("region name and segment must not be null");
            }
            regions.put(regionName, new Region(segment, accessFlags));
            cs = links.connections();
            for (Connection c : cs) {
                try {
                    c.endpoint.register(regionName, segment, accessFlags);
                } catch (EndpointClosedException e) {
                    // torn down meanwhile: the next connection registers everything
                }
            }
            Map<String, Long> rs = new LinkedHashMap<>();
            regions.forEach((n, r) -> rs.put(n, r.segment().byteSize()));
            record = new PeerRecord(name, incarnation, record.bootstrap(), record.hostId(), rs);
        }
        for (Connection c : cs) {
            try {
                c.pushRegions(c.endpoint.info(), settings.connectTimeout());
            } catch (RuntimeException e) {
                lost(c, "pushing region '" + regionName + "' to peer " + c.peer + " failed: " + e.getMessage());
            }
        }
        try {
            directory.publish(record, settings.lease());
        } catch (DirectoryException e) {
            noteDirectoryError(e); // the next heartbeat publishes it
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
        Connection c = connection(peer);
        try {
            return call.apply(c.endpoint);
        } catch (EndpointBusyException | PeerUnavailableException e) {
            throw e;
        } catch (EndpointException e) {
            lost(c, "connection to " + peer + " failed: " + e.getMessage());
            checkOpen();
            return call.apply(connection(peer).endpoint);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new EndpointClosedException("engine " + name + " is closed");
        }
    }

    /** The peer's live connection: the current one, or a new one (bounded by the connect timeout). */
    Connection connection(String peer) {
        PeerRecord.checkName(peer);
        if (peer.equals(name)) {
            throw new IllegalArgumentException("engine " + name + " cannot address itself");
        }
        long deadline = System.nanoTime() + settings.connectTimeout().toNanos();
        while (true) {
            checkOpen();
            Map.Entry<PeerLinks.Link, Boolean> e = links.outbound(peer);
            PeerLinks.Link link = e.getKey();
            if (e.getValue()) {
                dial(peer, link, deadline);
            }
            Connection c;
            try {
                c = link.ready.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException ex) {
                links.remove(peer, link);
                Throwable cause = ex.getCause();
                if (cause instanceof PeerUnavailableException p && p.isTransient()
                        && deadline - System.nanoTime() > TimeUnit.MILLISECONDS.toNanos(50)) {
                    sleepQuietly(20); // a handshake that broke off under load, or lost a race: dial again
                    continue;
                }
                if (cause instanceof PeerUnavailableException p) {
                    throw new PeerUnavailableException(p.getMessage(), p);
                }
                throw new PeerUnavailableException("cannot connect to peer " + peer + ": " + cause, cause);
            } catch (TimeoutException ex) {
                links.remove(peer, link);
                link.ready.completeExceptionally(new PeerUnavailableException("timed out", null));
                throw new PeerUnavailableException("no connection to peer " + peer + " within "
                        + settings.connectTimeout().toMillis() + " ms", ex);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new PeerUnavailableException("interrupted while connecting to peer " + peer, ex);
            }
            if (!c.isClosed()) {
                return c;
            }
            links.remove(peer, link);
            if (System.nanoTime() - deadline > 0) {
                throw new PeerUnavailableException("connection to peer " + peer + " closed: " + c.closedReason(), null);
            }
        }
    }

    /** Looks the peer up, dials its listener and handshakes; completes {@code link} or fails it. */
    private void dial(String peer, PeerLinks.Link link, long deadline) {
        RdmaEndpoint endpoint = null;
        BootstrapChannel channel = null;
        try {
            PeerRecord rec;
            try {
                rec = directory.lookup(peer).orElseThrow(() -> new PeerUnavailableException("no engine '" + peer
                        + "' in directory " + directory.url(), null));
            } catch (DirectoryException ex) {
                noteDirectoryError(ex);
                throw new PeerUnavailableException("cannot look up peer " + peer + ": " + ex.getMessage(), ex);
            }
            while (true) {
            long t0 = System.nanoTime();
            channel = Bootstrap.connect(rec.bootstrapHost(), rec.bootstrapPort(), remaining(deadline));
            long t1 = System.nanoTime();
            Connection[] built = new Connection[1];
            long version = regionsVersion();
            endpoint = openEndpoint(peer, rec.incarnation());
            long t2 = System.nanoTime();
            BootstrapMessage reply = channel.exchange(BootstrapMessage.of(endpoint.info(), Map.of("type", "connect",
                    "from", name, "fromIncarnation", Long.toString(incarnation), "to", peer,
                    "toIncarnation", Long.toString(rec.incarnation()))), remaining(deadline));
            long t3 = System.nanoTime();
            if (t3 - t0 > 1_000_000_000L) {
                LOG.warn("engine {}: slow dial to {}: tcp {} ms, endpoint {} ms, exchange {} ms ({})", name, peer,
                        (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000, reply.get("type", ""));
            }
            switch (reply.get("type", "")) {
                case "accept" -> {
                    endpoint.connect(reply.info());
                    channel.send(BootstrapMessage.of(Map.of("type", "ready")), remaining(deadline));
                    built[0] = new Connection(peer, rec.incarnation(), endpoint, channel);
                    endpoint = null;
                    channel = null;
                    install(link, built[0], version);
                    return;
                }
                case "crossing" -> {
                    return; // the peer's own dial wins and completes our link through the acceptor
                }
                case "connected" -> {
                    // the peer still holds a connection to us: ours was completed by its dial meanwhile
                    // (a late crossing), or it has not yet seen the old one end; look again shortly
                    endpoint.close();
                    endpoint = null;
                    channel.close();
                    channel = null;
                    if (!link.pending()) {
                        return;
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new PeerUnavailableException("peer " + peer + " kept an old connection to engine "
                                + name + " for the whole connect timeout", null);
                    }
                    Thread.sleep(20);
                }
                default -> throw new PeerUnavailableException("peer " + peer + " refused the connection: "
                        + reply.get("reason", reply.options().toString()), null);
            }
            }
        } catch (PeerUnavailableException ex) {
            fail(peer, link, ex);
        } catch (BootstrapException ex) {
            // refused or silent until the deadline is final; a channel that broke off mid-handshake is not
            fail(peer, link, new PeerUnavailableException("cannot reach peer " + peer + ": " + ex.getMessage(), ex,
                    ex.reason() == BootstrapException.Reason.CLOSED || ex.reason() == BootstrapException.Reason.IO));
        } catch (RuntimeException ex) {
            fail(peer, link, new PeerUnavailableException("connecting to peer " + peer + " failed: " + ex, ex));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            fail(peer, link, new PeerUnavailableException("interrupted while connecting to peer " + peer, ex));
        } finally {
            if (endpoint != null) {
                endpoint.close();
            }
            if (channel != null) {
                channel.close();
            }
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PeerUnavailableException("interrupted while connecting", e);
        }
    }

    private void fail(String peer, PeerLinks.Link link, PeerUnavailableException ex) {
        links.remove(peer, link);
        link.ready.completeExceptionally(ex);
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
    }

    private long regionsVersion() {
        synchronized (regionLock) {
            return regions.size();
        }
    }

    /** An endpoint towards {@code peer} on the engine's devices and threads, with every region registered. */
    private RdmaEndpoint openEndpoint(String peer, long peerIncarnation) {
        EndpointConfig config = settings.endpointConfig().toBuilder()
                .name(name + ">" + peer + "#" + Long.toHexString(peerIncarnation)).build();
        RdmaEndpoint e = RdmaEndpoint.open(List.copyOf(devices), config, dispatch);
        try {
            synchronized (regionLock) {
                regions.forEach((n, r) -> e.register(n, r.segment(), r.access()));
            }
            return e;
        } catch (RuntimeException ex) {
            e.close();
            throw ex;
        }
    }

    /** Makes {@code c} the peer's connection if {@code link} is still current; registers regions added meanwhile. */
    private void install(PeerLinks.Link link, Connection c, long version) {
        if (!links.isCurrent(c.peer, link) || !link.pending() || closed) {
            c.close("superseded by another connection to " + c.peer);
            return;
        }
        boolean push = false;
        synchronized (regionLock) {
            if (regions.size() != version) {
                regions.forEach((n, r) -> {
                    try {
                        c.endpoint.register(n, r.segment(), r.access());
                    } catch (IllegalArgumentException alreadyThere) {
                        // registered when the endpoint was opened
                    }
                });
                push = true;
            }
        }
        watch.connected(c.peer, System.currentTimeMillis());
        link.ready.complete(c);
        c.start(this::lost);
        if (push) {
            c.pushRegions(c.endpoint.info(), settings.connectTimeout());
        }
        LOG.debug("engine {}: connected to {} (incarnation {})", name, c.peer, c.peerIncarnation);
    }

    /** Tears a connection down: cancels its ops; the next op towards the peer looks it up again. */
    private void lost(Connection c, String reason) {
        if (c.isClosed()) {
            return;
        }
        LOG.info("engine {}: dropping the connection to {}: {}", name, c.peer, reason);
        c.close(reason);
        watch.forget(c.peer);
        links.removeConnection(c.peer, c);
    }

    // ------------------------------------------------------------------ the acceptor

    private void acceptLoop() {
        while (!closed) {
            BootstrapChannel ch;
            try {
                ch = listener.accept(Duration.ofMillis(500));
            } catch (BootstrapException e) {
                if (closed) {
                    return;
                }
                if (e.reason() != BootstrapException.Reason.TIMEOUT) {
                    LOG.warn("engine {}: accepting failed: {}", name, e.getMessage());
                }
                continue;
            }
            Thread.ofVirtual().name("slime4j-engine-" + name + "-handshake").start(() -> accept(ch));
        }
    }

    private void accept(BootstrapChannel ch) {
        RdmaEndpoint endpoint = null;
        PeerLinks.Link link = null;
        String from = null;
        try {
            Duration t = settings.connectTimeout();
            BootstrapMessage hello = ch.receive(t);
            if (!"connect".equals(hello.get("type", "")) || hello.info() == null) {
                throw new IllegalArgumentException("not a connect message: " + hello.options());
            }
            from = PeerRecord.checkName(hello.require("from"));
            long fromInc = Long.parseLong(hello.require("fromIncarnation"));
            if (!name.equals(hello.require("to")) || incarnation != Long.parseLong(hello.require("toIncarnation"))) {
                ch.send(BootstrapMessage.of(Map.of("type", "refuse", "reason", "this is engine " + name
                        + " incarnation " + incarnation + ", not " + hello.require("to") + " incarnation "
                        + hello.require("toIncarnation") + " (a stale record)")), t);
                ch.close();
                return;
            }
            Map.Entry<PeerLinks.Inbound, PeerLinks.Link> d = links.inbound(from);
            if (d.getKey() != PeerLinks.Inbound.ACCEPT) {
                ch.send(BootstrapMessage.of(Map.of("type", d.getKey() == PeerLinks.Inbound.REFUSE_CROSSING
                        ? "crossing" : "connected")), t);
                ch.close();
                return;
            }
            link = d.getValue();
            long version = regionsVersion();
            endpoint = openEndpoint(from, fromInc);
            endpoint.connect(hello.info());
            ch.send(BootstrapMessage.of(endpoint.info(), Map.of("type", "accept", "from", name,
                    "fromIncarnation", Long.toString(incarnation))), t);
            BootstrapMessage ready = ch.receive(t);
            if (!"ready".equals(ready.get("type", ""))) {
                throw new IllegalArgumentException("expected ready, got " + ready.options());
            }
            Connection c = new Connection(from, fromInc, endpoint, ch);
            endpoint = null;
            install(link, c, version);
        } catch (RuntimeException e) {
            LOG.debug("engine {}: inbound handshake{} failed: {}", name, from == null ? "" : " from " + from,
                    e.toString());
            if (endpoint != null) {
                endpoint.close();
            }
            ch.close();
            if (link != null) {
                fail(from, link, new PeerUnavailableException("handshake with peer " + from + " failed: " + e, e, true));
            }
        }
    }

    // ------------------------------------------------------------------ heartbeat and liveness

    private void beat() {
        try {
            directory.publish(record, settings.lease());
        } catch (RuntimeException e) {
            noteDirectoryError(e);
        }
        List<PeerRecord> listing;
        try {
            listing = directory.list();
        } catch (RuntimeException e) {
            noteDirectoryError(e);
            watch.directoryFailed();
            return; // an unreachable directory drops nobody
        }
        Map<String, Long> connected = new LinkedHashMap<>();
        Map<String, Connection> byName = new LinkedHashMap<>();
        for (Connection c : links.connections()) {
            connected.put(c.peer, c.peerIncarnation);
            byName.put(c.peer, c);
        }
        watch.observe(connected, listing, System.currentTimeMillis()).forEach((peer, reason) -> lost(byName.get(peer),
                reason));
    }

    private void noteDirectoryError(RuntimeException e) {
        String msg = e.getMessage();
        if (!msg.equals(lastDirectoryError)) {
            LOG.warn("engine {}: {}", name, msg);
        }
        lastDirectoryError = msg;
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
            directory.unpublish(record);
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
        for (Connection c : links.clear()) {
            c.close("engine " + name + " closed");
        }
        dispatch.close();
        devices.forEach(VerbsDevice::close);
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

        /** The wire the devices use (default a UDP wire of the engine's own); stays the caller's. */
        public Builder wire(Wire v) {
            wire = v;
            return this;
        }

        /**
         * Opens the devices and the listener, publishes the record and starts the threads.
         *
         * @throws IllegalArgumentException for settings out of range
         * @throws DirectoryException       if the first publish fails
         */
        public TransferEngine start() {
            if (lease == null || lease.toMillis() < 1000) {
                throw new IllegalArgumentException("lease must be at least 1 s, was " + lease);
            }
            Duration hb = heartbeat != null ? heartbeat : lease.dividedBy(3);
            if (hb.isNegative() || hb.isZero() || hb.compareTo(lease) >= 0) {
                throw new IllegalArgumentException("heartbeat must be positive and shorter than the lease " + lease
                        + ", was " + hb);
            }
            if (connectTimeout == null || connectTimeout.toMillis() < 1) {
                throw new IllegalArgumentException("connectTimeout must be positive, was " + connectTimeout);
            }
            if (rails < 1 || rails > EndpointConfig.MAX_QPS) {
                throw new IllegalArgumentException("rails must be 1.." + EndpointConfig.MAX_QPS + ", was " + rails);
            }
            String host = hostId;
            if (host == null) {
                try {
                    host = InetAddress.getLocalHost().getHostName();
                } catch (java.net.UnknownHostException e) {
                    host = "unknown";
                }
            }
            try {
                return new TransferEngine(name, directory, new Settings(lease, hb, connectTimeout, bindHost, rails,
                        endpointConfig, host, progressIdlePark), wire);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("engine " + name + " could not start: " + e, e);
            }
        }
    }
}
