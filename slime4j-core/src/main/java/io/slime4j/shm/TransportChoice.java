package io.slime4j.shm;

import java.util.Locale;

/**
 * Which device to use towards a peer: {@link #SHM} for a peer on this host, the caller's network
 * device otherwise. {@code AUTO} (the default) decides from the two {@link HostIdentity}s; a setting
 * ({@code slime4j.transport} / {@code SLIME4J_TRANSPORT}: auto, shm or network) forces either.
 */
public enum TransportChoice {
    AUTO, SHM, NETWORK;

    /**
     * The setting of the environment.
     *
     * @throws IllegalArgumentException naming the value if it is none of auto, shm, network
     */
    public static TransportChoice fromEnvironment() {
        String v = System.getProperty("slime4j.transport", System.getenv("SLIME4J_TRANSPORT"));
        if (v == null) {
            return AUTO;
        }
        try {
            return valueOf(v.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("slime4j.transport must be auto, shm or network, was '" + v + "'");
        }
    }

    /**
     * Whether to use an shm device towards a peer whose identity is {@code peer} (null: unknown, e.g.
     * an older peer that does not say).
     *
     * @throws IllegalArgumentException when {@code SHM} is forced towards a peer known to be elsewhere
     */
    public boolean useShm(HostIdentity local, HostIdentity peer) {
        return switch (this) {
            case NETWORK -> false;
            case SHM -> {
                if (peer != null && !local.sameHostAs(peer)) {
                    throw new IllegalArgumentException("transport shm was forced, but the peer runs on another host"
                            + " or in other namespaces (" + peer.toText() + ", this process " + local.toText() + ")");
                }
                yield true;
            }
            case AUTO -> peer != null && local.sameHostAs(peer) && ShmDevice.unavailability() == null;
        };
    }
}
