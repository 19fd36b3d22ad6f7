package io.slime4j.wire;

import java.lang.foreign.MemorySegment;

/** Receives datagrams from {@link WirePort#receive}. */
@FunctionalInterface
public interface PacketHandler {

    /**
     * One datagram. {@code packet} holds at least {@code length} bytes and is valid only during
     * this call; {@code from} is the sender's address.
     */
    void onPacket(MemorySegment packet, int length, WireAddress from);
}
