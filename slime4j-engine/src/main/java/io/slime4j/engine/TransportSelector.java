package io.slime4j.engine;

import io.slime4j.engine.directory.PeerRecord;
import io.slime4j.shm.HostIdentity;
import io.slime4j.shm.TransportChoice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Decides, per peer, whether a {@link TransferEngine} connects over shared memory or the network,
 * so that both sides agree. The dialling side decides from the peer's directory record (known
 * before either endpoint exists: an endpoint is opened on the chosen device, so the choice cannot
 * wait for the endpoint descriptions): shm when its setting allows, it has an shm device, the
 * record offers shm and states a host identity equal to this process's; network otherwise. Its
 * handshake names the choice and its own identity; the accepting side checks both
 * ({@link #checkInbound}) and follows, or refuses with the reason. A record or handshake that
 * states no identity (an older engine) is on another host.
 *
 * <p>Settings ({@link TransportChoice}, {@code slime4j.transport} / {@code SLIME4J_TRANSPORT}):
 * {@code auto} as above; {@code network} never opens an shm device, so its record does not offer
 * shm and same-host peers dial it over the network; {@code shm} connects only over shm and fails
 * clearly towards a peer that is elsewhere, does not say where it is, or does not take shm.
 */
final class TransportSelector {
    private final TransportChoice setting;
    private final HostIdentity local;
    private final boolean shmOpen;

    /**
     * @param setting the engine's setting
     * @param local   this process's identity, null if it could not be read (then never shm)
     * @param shmOpen whether the engine has an shm device
     */
    TransportSelector(TransportChoice setting, HostIdentity local, boolean shmOpen) {
        if (setting == TransportChoice.SHM && !shmOpen) {
            throw new IllegalArgumentException("transport shm was forced, but this engine has no shm device");
        }
        this.setting = setting;
        this.local = local;
        this.shmOpen = shmOpen;
    }

    /**
     * Whether an engine with {@code setting} should open an shm device, given why shm cannot run
     * here ({@code unavailability}, null if it can).
     *
     * @throws IllegalArgumentException when shm is forced but cannot run, naming why
     */
    static boolean wantsShmDevice(TransportChoice setting, String unavailability) {
        return wantsShmDevice(setting, unavailability, ptraceObstacle(Path.of(YAMA_SCOPE), effectiveUid()));
    }

    /**
     * As {@link #wantsShmDevice(TransportChoice, String)}, with {@code ptraceObstacle}: why the
     * kernel would refuse {@code process_vm_readv}/{@code writev} between two ordinary processes
     * here (null if it would not). {@code auto} then keeps to the network, because memory that is
     * not {@code SharedMemory} could not be reached; a forced {@code shm} still opens the device
     * (its {@code SharedMemory} regions are mapped, which Yama does not restrict).
     */
    static boolean wantsShmDevice(TransportChoice setting, String unavailability, String ptraceObstacle) {
        return switch (setting) {
            case NETWORK -> false;
            case AUTO -> unavailability == null && ptraceObstacle == null;
            case SHM -> {
                if (unavailability != null) {
                    throw new IllegalArgumentException("transport shm was forced, but shm cannot run here: "
                            + unavailability);
                }
                yield true;
            }
        };
    }

    /** Yama's ptrace scope: 0 lets a process read and write another of its user's. */
    static final String YAMA_SCOPE = "/proc/sys/kernel/yama/ptrace_scope";

    /**
     * Why cross-memory attach between two processes of this user is refused here, or null: Yama's
     * {@code ptrace_scope} above 0 for a process that is not root (no file: no Yama, nothing in the way).
     */
    static String ptraceObstacle(Path yamaScope, long euid) {
        String v;
        try {
            v = Files.readString(yamaScope).strip();
        } catch (IOException | RuntimeException e) {
            return null;
        }
        if (euid == 0 || v.equals("0")) {
            return null;
        }
        return "Yama ptrace_scope is " + v + " (" + yamaScope + "), so process_vm_readv/writev towards a peer"
                + " process is refused to a process that is not root";
    }

    /** The effective uid from /proc/self/status, or -1 if unknown. */
    static long effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Long.parseLong(line.substring(4).strip().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown
        }
        return -1;
    }

    /** This engine's setting. */
    TransportChoice setting() {
        return setting;
    }

    /** The identity the record and handshakes state: empty if unknown. */
    String hostText() {
        return local == null ? "" : local.toText();
    }

    /** The transports the engine's record offers. */
    List<String> offered() {
        if (!shmOpen) {
            return List.of(PeerRecord.NETWORK);
        }
        return setting == TransportChoice.SHM ? List.of(PeerRecord.SHM) : List.of(PeerRecord.SHM, PeerRecord.NETWORK);
    }

    /**
     * The transport to dial {@code peer} with.
     *
     * @throws IllegalArgumentException when shm is forced and the peer cannot be reached over it,
     *                                  naming the peer and why
     */
    PeerTransport dial(PeerRecord peer) {
        HostIdentity there = identity(peer.host());
        boolean sameHost = local != null && there != null && local.sameHostAs(there);
        return switch (setting) {
            case NETWORK -> PeerTransport.NETWORK;
            case AUTO -> shmOpen && sameHost && peer.acceptsShm() ? PeerTransport.SHM : PeerTransport.NETWORK;
            case SHM -> {
                if (there == null) {
                    throw new IllegalArgumentException("transport shm was forced, but peer " + peer.name()
                            + " does not state its host (an engine that predates shm?)");
                }
                if (!sameHost) {
                    throw new IllegalArgumentException("transport shm was forced, but peer " + peer.name()
                            + " runs on another host or in other namespaces (" + there.toText() + ", this process "
                            + hostText() + ")");
                }
                if (!peer.acceptsShm()) {
                    throw new IllegalArgumentException("transport shm was forced, but peer " + peer.name()
                            + " takes only " + peer.transports() + " (its setting is network, or shm cannot run"
                            + " there)");
                }
                yield PeerTransport.SHM;
            }
        };
    }

    /**
     * Checks the transport a dialling peer chose.
     *
     * @param transport what its handshake names (null: an engine that predates transports, network)
     * @param host      the identity its handshake states (null or empty: none)
     * @return null to accept, else the reason to refuse
     */
    String checkInbound(String peer, PeerTransport transport, String host) {
        if (transport == PeerTransport.NETWORK) {
            return setting == TransportChoice.SHM ? "engine takes only shm connections (transport shm was forced),"
                    + " peer " + peer + " dialled over the network" : null;
        }
        if (!shmOpen) {
            return "engine takes no shm connections (" + (setting == TransportChoice.NETWORK
                    ? "transport network was forced" : "shm cannot run here") + "), peer " + peer + " dialled over shm";
        }
        HostIdentity there = identity(host);
        if (there == null || local == null || !local.sameHostAs(there)) {
            return "peer " + peer + " dialled over shm from another host or other namespaces ("
                    + (there == null ? "none stated" : there.toText()) + ", this process " + hostText() + ")";
        }
        return null;
    }

    /** The identity of a record or handshake: null if it states none or a malformed one. */
    static HostIdentity identity(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return HostIdentity.parse(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
