/**
 * The wire SPI: how the soft engine's packets move between devices. A {@link io.slime4j.wire.Wire}
 * binds {@link io.slime4j.wire.WirePort}s; a port sends datagrams to
 * {@link io.slime4j.wire.WireAddress}es and hands received ones to a
 * {@link io.slime4j.wire.PacketHandler}. A wire knows nothing of queue pairs: it moves bytes, may
 * lose, duplicate or reorder them, and never blocks. Two optional capabilities save the engine a
 * copy each where a wire has them: a gathering send of a header and a payload from two places
 * ({@link io.slime4j.wire.WirePort#gathers()}), and, for a
 * {@link io.slime4j.wire.PlacingPacketHandler}, receiving a payload straight at the place the
 * handler names.
 *
 * <p>Threading: {@link io.slime4j.wire.WirePort#send} and
 * {@link io.slime4j.wire.WirePort#receive} are called by one thread, the owning device's progress
 * agent; {@link io.slime4j.wire.WirePort#close} may be called from any thread.
 */
package io.slime4j.wire;
