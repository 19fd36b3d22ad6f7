package io.slime4j.shm;

import java.util.Locale;

/**
 * The transport setting: which device to use towards a peer. {@code AUTO} (the default) uses an
 * {@link ShmDevice} for a peer of the same {@link HostIdentity} and the network otherwise; the
 * setting ({@code slime4j.transport} / {@code SLIME4J_TRANSPORT}: auto, shm or network) forces
 * either. The decision per peer, agreed by both sides, is made by the transfer engine
 * (slime4j-engine; docs/ENGINE.md, "Transports").
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
}
