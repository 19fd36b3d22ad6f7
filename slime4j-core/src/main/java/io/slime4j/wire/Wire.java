package io.slime4j.wire;

/**
 * A way to move datagrams between devices (in-process queues, UDP sockets, ...). Implementations
 * report whether they can run here, as Netty's transports do.
 */
public interface Wire extends AutoCloseable {

    /** Short name, e.g. {@code inproc} or {@code udp}; also the prefix of its address texts. */
    String name();

    /**
     * Binds a port at {@code address} (wire-specific text; an empty string or port 0 picks one).
     *
     * @throws java.io.UncheckedIOException if the address cannot be bound (in use, not local)
     * @throws IllegalArgumentException     if the text is not an address of this wire
     */
    WirePort bind(String address);

    /** Whether the wire can run on this machine. */
    default boolean isAvailable() {
        return true;
    }

    /** Why the wire cannot run here, or null when it can. */
    default Throwable unavailabilityCause() {
        return null;
    }

    /** Closes every port bound through this wire. */
    @Override
    void close();
}
