/**
 * The verbs API: the programming model of an RDMA device, the same contract whatever implements it.
 *
 * <p>A {@link io.slime4j.verbs.VerbsDevice} hands out {@link io.slime4j.verbs.ProtectionDomain}s
 * (which register {@link io.slime4j.verbs.MemoryRegion}s), {@link io.slime4j.verbs.CompletionQueue}s
 * and reliable-connected {@link io.slime4j.verbs.QueuePair}s. Work is posted as
 * {@link io.slime4j.verbs.WorkRequest}s and reported as {@link io.slime4j.verbs.WorkCompletion}s whose
 * statuses mirror {@code ibv_wc_status}.
 *
 * <p>Threading: every method may be called from any thread. Posting copies the request, so a
 * {@code WorkRequest} may be reused as soon as {@code postSend}/{@code postRecv} returns. Completion
 * queues may be polled from several threads. No method blocks without a bound: the only blocking
 * call, {@link io.slime4j.verbs.CompletionQueue#await}, takes a timeout.
 */
package io.slime4j.verbs;
