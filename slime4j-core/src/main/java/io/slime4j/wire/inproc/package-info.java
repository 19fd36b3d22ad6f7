/**
 * The in-process wire: datagrams move between ports of one JVM through bounded lock-free queues,
 * with a seeded fault injector (drop, duplicate, reorder, delay) for testing the reliability layer.
 *
 * <p>An {@link io.slime4j.wire.inproc.InprocWire} is a fabric: ports bound through it reach each
 * other by {@link io.slime4j.wire.inproc.InprocAddress} ({@code inproc:NAME}). Each port has two
 * channels, priority and data, each a bounded multi-producer single-consumer queue of
 * {@link io.slime4j.wire.inproc.InprocWire#QUEUE_CAPACITY} datagrams; a full queue makes
 * {@code send} return false. Buffers are pooled per sending port. A
 * {@link io.slime4j.wire.inproc.FaultConfig} set on the wire (live, with
 * {@link io.slime4j.wire.inproc.InprocWire#setFaults}) decides each datagram's fate from a
 * per-port generator; {@link io.slime4j.wire.inproc.FaultStats} counts what happened.
 *
 * <p>Threading: {@code send} on one port is called by one thread at a time (the owner's progress
 * agent), but many ports send to one destination concurrently, so each destination queue is
 * multi-producer, single-consumer. {@code receive} on a port is called by its owner's thread only
 * (it may be the sending thread). The wakeup registered with {@code onReceivable} runs on the
 * sending thread right after each datagram is queued and must be cheap (e.g. unpark when idle).
 * Datagrams held back by a delay need no further wakeup: they are handed over by a later
 * {@code receive} once due, so an idle receiver must poll. {@code close} may be called from any
 * thread, on a port or the wire; no lock is held while user code (handler, wakeup) runs.
 */
package io.slime4j.wire.inproc;
