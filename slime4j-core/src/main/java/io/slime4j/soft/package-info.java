/**
 * The software RC engine: {@link io.slime4j.soft.SoftDevice} implements the verbs API over any
 * {@link io.slime4j.wire.Wire}.
 *
 * <p>Per queue pair, a {@code Requester} turns send-queue requests (and read/atomic responses owed
 * to the peer) into one reliable packet stream: PSNs with wraparound arithmetic, a send window,
 * retransmission on per-segment timers (a timer wheel), on duplicate ACKs and after RNR NAKs, and
 * an AIMD congestion window. A {@code Responder} executes the peer's stream exactly once and in
 * order, places RDMA-write data as soon as it arrives, and answers with delayed, piggy-backed or
 * immediate cumulative ACKs carrying SACK blocks. The wire format is {@code HeaderFlyweight}.
 *
 * <p>Threading: one {@code ProgressAgent} thread per device (or per {@link io.slime4j.soft.ProgressGroup},
 * shared by its devices) owns all protocol state; posting
 * threads write into per-queue-pair rings under a short lock and wake the agent; completion queues
 * have one producer (the agent) and lock-serialised pollers.
 */
package io.slime4j.soft;
