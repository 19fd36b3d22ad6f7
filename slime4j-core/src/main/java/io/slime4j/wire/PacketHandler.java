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

    /**
     * Whether the port goes on handing datagrams over in this {@link WirePort#receive} call; asked
     * after a datagram was handed over, before the port receives another (the datagrams of one
     * coalesced receive are handed over together). False ends the call early, the rest left queued
     * for the next call: a thread that waits for the datagram it just got returns to its caller
     * without first polling for more (on the UDP wire, a system call that finds a socket empty,
     * each). A port may still take what its delivery order needs ({@link WirePort#receive}). True
     * by default.
     */
    default boolean receiveMore() {
        return true;
    }
}
