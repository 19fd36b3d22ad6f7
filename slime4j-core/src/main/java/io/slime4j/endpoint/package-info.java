/**
 * The transfer-engine API on top of the verbs API: {@link io.slime4j.endpoint.RdmaEndpoint}.
 *
 * <p>An endpoint owns, on one or several {@link io.slime4j.verbs.VerbsDevice}s (rails), a protection
 * domain and a completion queue per rail, {@code qps} io queue pairs (lanes, spread over the rails)
 * and two message queue pairs (meta and data, on rail 0); a pluggable
 * {@link io.slime4j.endpoint.QpSelector} routes every request to a lane. It uses nothing but the
 * verbs API, and so runs unchanged on any verbs implementation. Memory is registered by name;
 * peers exchange {@link io.slime4j.endpoint.EndpointInfo} (JSON) out of band and connect.
 *
 * <p>Ownership, in four layers (docs/ENDPOINT.md): the caller's {@link io.slime4j.endpoint.TransferFuture}
 * holds a per-op {@code OpState} (created per op, never pooled, with its own one-shot signal); the
 * op leases pooled {@code Slot}s from free rings, and the work-request ids point at those slots;
 * a slot returns to its ring only after the last completion of its lease. A weak in-flight registry
 * lets {@link io.slime4j.endpoint.RdmaEndpoint#cancelAll()} reach every live op without the slots.
 *
 * <p>Threading contract:
 * <ul>
 *   <li>Every public method may be called from any thread, concurrently. Operation calls return at
 *       once with a future; they block only for back-pressure (a free slot, a send-queue or
 *       write-with-imm credit), at most {@link io.slime4j.endpoint.EndpointConfig#slotTimeout()},
 *       and then throw {@link io.slime4j.endpoint.EndpointBusyException}.</li>
 *   <li>One dispatch thread per endpoint and rail ({@code slime4j-NAME-dispatch[-railN]}) waits on
 *       its rail's completion queue with a bounded timeout (no busy spin), routes each completion by its wrId, re-posts
 *       receive windows, releases slots and completes ops. It never runs user code.</li>
 *   <li>{@link io.slime4j.endpoint.QpSelector}s are called from callers' and dispatch threads
 *       concurrently and must be thread-safe.</li>
 *   <li>A future's {@code await}/{@code get}/{@code join} wake on the op's own signal. Its
 *       {@link java.util.concurrent.CompletionStage} is completed on
 *       {@link io.slime4j.endpoint.EndpointConfig#completionExecutor()} (a virtual thread per op
 *       that has stages by default), never on the dispatch thread or a progress agent, so
 *       dependent stages may block.</li>
 *   <li>{@link io.slime4j.endpoint.RdmaEndpoint#close()} may race with calls: those fail with
 *       {@link io.slime4j.endpoint.EndpointClosedException} or complete cancelled or failed, never
 *       with a wrong answer.</li>
 * </ul>
 */
package io.slime4j.endpoint;
