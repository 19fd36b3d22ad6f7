package io.slime4j.engine;

import io.slime4j.engine.directory.PeerRecord;

/**
 * How a {@link TransferEngine} reaches one peer: over the network (its UDP rails) or through the
 * same-host shared-memory device. Chosen per connection by {@link TransportSelector}; the text form
 * ({@link #text()}) is what records and handshakes carry.
 */
public enum PeerTransport {
    /** The engine's network rails (soft engine over UDP, or the wire it was given). */
    NETWORK(PeerRecord.NETWORK),
    /** The shared-memory device ({@code io.slime4j.shm.ShmDevice}): one copy between the two processes. */
    SHM(PeerRecord.SHM);

    private final String text;

    PeerTransport(String text) {
        this.text = text;
    }

    /** {@code network} or {@code shm}. */
    public String text() {
        return text;
    }

    /**
     * The transport named {@code text}; null (a handshake from an engine that predates transports)
     * is {@link #NETWORK}.
     *
     * @throws IllegalArgumentException naming the text if it is neither
     */
    public static PeerTransport parse(String text) {
        if (text == null || text.equals(PeerRecord.NETWORK)) {
            return NETWORK;
        }
        if (text.equals(PeerRecord.SHM)) {
            return SHM;
        }
        throw new IllegalArgumentException("transport must be network or shm, was '" + text + "'");
    }
}
