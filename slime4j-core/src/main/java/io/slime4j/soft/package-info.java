/**
 * The software RC engine: {@link io.slime4j.soft.SoftDevice} implements the verbs API over any
 * {@link io.slime4j.wire.Wire}.
 *
 * <p>Per queue pair, the roles of the Linux soft-RoCE driver: a {@code Requester} sends new
 * requests, owed responses and retransmissions on one reliable stream; a {@code Responder} runs
 * each packet of the peer's stream through a named chain of checks (PSN, op sequence, op valid,
 * resources, length, key, execute) and executes it exactly once, in order; a {@code Completer}
 * takes in ACKs, NAKs and responses and completes requests in post order. Under them the
 * reliable stream has one class per mechanism: {@code OutboundStream}, {@code LossRecovery}
 * (SACK, RACK, tail-loss probe, RTO), {@code ReorderWindow}, {@code RttEstimator},
 * {@code CongestionControl} (AIMD with a loss floor),
 * {@code InboundStream}, {@code ReorderBuffer}, {@code AckScheduler}. The wire format is
 * {@code HeaderFlyweight}, read through the typed frames {@code DataFrame}, {@code AckFrame} and
 * {@code ResponseFrame}. Small packets for one peer leave together in one datagram per duty cycle
 * ({@code Coalescer}) and are split on arrival ({@code BundleSplitter}). Protocol counters: {@link io.slime4j.soft.SoftCounter}.
 *
 * <p>Threading: one {@code ProgressAgent} thread per device (or per {@link io.slime4j.soft.ProgressGroup},
 * shared by its devices) owns all protocol state; posting
 * threads write into per-queue-pair rings under a short lock and wake the agent; completion queues
 * have one producer (the agent) and lock-serialised pollers.
 */
package io.slime4j.soft;
