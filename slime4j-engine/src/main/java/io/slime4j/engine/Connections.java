package io.slime4j.engine;

import io.slime4j.endpoint.DispatchGroup;
import io.slime4j.endpoint.EndpointClosedException;
import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.endpoint.RdmaEndpoint;
import io.slime4j.verbs.VerbsDevice;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the dial side ({@link Dialer}) and the accept side ({@link Acceptor}) of a
 * {@link TransferEngine} share: the engine's identity and settings, its peer table
 * ({@link PeerLinks}) and liveness ({@link PeerWatch}), and its registered regions. It opens an
 * endpoint towards a peer with every region registered, installs a finished handshake as the
 * peer's connection, and tears a lost one down.
 */
final class Connections {
    private static final Logger LOG = LoggerFactory.getLogger(TransferEngine.class); // the engine's log

    final String name;
    final long incarnation;
    final EngineSettings settings;
    final PeerLinks links;
    final PeerWatch watch;
    final TransportSelector transports;
    private final List<VerbsDevice> devices;
    private final VerbsDevice shmDevice;
    private final DispatchGroup dispatch;
    private final BooleanSupplier closed;
    private final Object regionLock = new Object();
    private final Map<String, Region> regions = new LinkedHashMap<>();

    private record Region(MemorySegment segment, int access) {
    }

    /** {@code devices}: the network rails; {@code shmDevice}: the shm device, null if none. */
    Connections(String name, long incarnation, EngineSettings settings, List<? extends VerbsDevice> devices,
                VerbsDevice shmDevice, TransportSelector transports, DispatchGroup dispatch, BooleanSupplier closed) {
        this.name = name;
        this.incarnation = incarnation;
        this.settings = settings;
        this.devices = List.copyOf(devices);
        this.shmDevice = shmDevice;
        this.transports = transports;
        this.dispatch = dispatch;
        this.closed = closed;
        this.links = new PeerLinks(name);
        this.watch = new PeerWatch(settings.lease().toMillis());
    }

    /** Whether the engine is closed. */
    boolean closed() {
        return closed.getAsBoolean();
    }

    /**
     * Adds a region and registers it with each connected peer; {@code regionSizes} is given every
     * region's length while the region table is still locked. Then pushes the new keys to each peer
     * (bounded by the connect timeout), dropping a peer that fails.
     */
    void register(String regionName, MemorySegment segment, int accessFlags, Consumer<Map<String, Long>> regionSizes) {
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
            regionSizes.accept(rs);
        }
        for (Connection c : cs) {
            try {
                c.pushRegions(c.endpoint.info(), settings.connectTimeout());
            } catch (RuntimeException e) {
                lost(c, "pushing region '" + regionName + "' to peer " + c.peer + " failed: " + e.getMessage());
            }
        }
    }

    /** The regions' version, taken before opening an endpoint: {@link #install} registers what was added since. */
    long regionsVersion() {
        synchronized (regionLock) {
            return regions.size();
        }
    }

    /**
     * An endpoint towards {@code peer} on the devices of {@code transport} (the network rails, or
     * the one shm device: rails mean nothing within a host) and the engine's threads, with every
     * region registered.
     */
    RdmaEndpoint openEndpoint(String peer, long peerIncarnation, PeerTransport transport) {
        EndpointConfig config = settings.endpointConfig().toBuilder()
                .name(name + ">" + peer + "#" + Long.toHexString(peerIncarnation)).build();
        List<VerbsDevice> on = devices;
        if (transport == PeerTransport.SHM) {
            if (shmDevice == null) {
                throw new IllegalStateException("engine " + name + " has no shm device");
            }
            on = List.of(shmDevice);
        }
        RdmaEndpoint e = RdmaEndpoint.open(on, config, dispatch);
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
    void install(PeerLinks.Link link, Connection c, long version) {
        if (!links.isCurrent(c.peer, link) || !link.pending() || closed()) {
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
    void lost(Connection c, String reason) {
        if (c.isClosed()) {
            return;
        }
        LOG.info("engine {}: dropping the connection to {}: {}", name, c.peer, reason);
        c.close(reason);
        watch.forget(c.peer);
        links.removeConnection(c.peer, c);
    }

    /** Ends a handshake that failed: the link is dropped and whoever waits on it gets {@code ex}. */
    void fail(String peer, PeerLinks.Link link, PeerUnavailableException ex) {
        links.remove(peer, link);
        link.ready.completeExceptionally(ex);
    }
}
