package io.slime4j.wire;

/**
 * A resolved address of a wire. Implementations are values ({@code equals}/{@code hashCode}) so
 * that a device can check that a datagram came from the connected peer.
 */
public interface WireAddress {

    /** The address as text, parseable by {@link WirePort#resolve(String)} of the same wire. */
    String text();
}
