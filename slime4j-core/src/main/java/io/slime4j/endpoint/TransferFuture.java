package io.slime4j.endpoint;

import io.slime4j.verbs.WcStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Layer 1: the caller's handle on one operation of an {@link RdmaEndpoint}. It is the op's state
 * itself (one object per op: the op, its completion signal and this future), never a pooled slot,
 * so it can only ever observe its own op's completion, however long it is kept and however often
 * the slots behind it are reused.
 *
 * <p>It is a {@link Future} and a {@link CompletionStage} whose value is the future itself (read
 * {@link #byteCount()}, {@link #immediate()} from it):
 * <ul>
 * <li>{@link #get()} / {@link #get(long, TimeUnit)} throw on failure as {@code Future.get} does: an
 *     {@link ExecutionException} whose cause is a {@link TransferFailedException} naming the status,
 *     or a {@link CancellationException};
 * <li>{@link #join()} waits uninterruptibly and {@link #join(Duration)} interruptibly with a bound;
 *     both throw {@link TransferFailedException} for a failed or cancelled op;
 * <li>{@link #await()} / {@link #await(Duration)} only wait and return the {@link TransferStatus};
 * <li>{@link #allOf} waits for a batch of ops.
 * </ul>
 *
 * <p><b>Dependent stages never run on an endpoint or engine thread.</b> The stage methods
 * ({@code thenApply}, {@code whenComplete}, ...) hang on one {@link CompletableFuture} per op, made
 * on first use and completed by {@link EndpointConfig#completionExecutor()} (by default a new
 * virtual thread per op that has stages), never by the dispatch thread or a progress agent: a
 * stage that blocks delays nothing but itself. A stage added after completion runs on the thread
 * adding it, as with any {@code CompletableFuture}. Ops nobody asks a stage of cost no thread and no
 * allocation beyond the op itself. (A completion executor that runs tasks inline, e.g.
 * {@code Runnable::run}, gives this guarantee up, by the caller's choice.)
 *
 * <p><b>When a send completes.</b> An eager send (at most {@link EndpointConfig#eagerThreshold()}
 * bytes) completes when its data has reached the peer's endpoint, before the peer's recv may have
 * taken it; a rendezvous send when its data is in the recv's buffer (see {@link RdmaEndpoint#send}).
 *
 * <p>Every accessor may be called from any thread at any time. Before completion {@link #status()}
 * is {@link TransferStatus#PENDING}, {@link #wcStatus()} null and the counts 0.
 */
public final class TransferFuture extends OpState implements Future<TransferFuture> {
    private volatile CompletableFuture<TransferFuture> stage;

    TransferFuture(long seq, OpKind kind, long bytes, OpSignal signal, OpTracker tracker) {
        super(seq, kind, bytes, signal, tracker);
    }

    /** The op's state: this object (tests and the endpoint's own classes read it as an {@link OpState}). */
    OpState op() {
        return this;
    }

    /** A number identifying the op in this endpoint (increasing in call order). */
    public long id() {
        return seq;
    }

    /** What the op does. */
    public OpKind kind() {
        return kind;
    }

    /** The outcome so far. */
    public TransferStatus status() {
        Result r = result();
        return r == null ? TransferStatus.PENDING : r.status();
    }

    /**
     * The verbs status: SUCCESS, the status of the first failed request (e.g. REM_ACCESS_ERR,
     * LOC_LEN_ERR for a send longer than the peer's receive, REM_ABORT_ERR when the peer cancelled the
     * matching send), WR_FLUSH_ERR when cancelled; null while pending.
     */
    public WcStatus wcStatus() {
        Result r = result();
        return r == null ? null : r.wcStatus();
    }

    /**
     * Bytes moved by a successful op: the batch total for read and write, the message length for
     * send and recv (the sender's length, at most the receive's), 0 for {@code immRecv}; 0 unless
     * {@link TransferStatus#SUCCESS}.
     */
    public long byteCount() {
        return resultBytes();
    }

    /** The immediate datum received by a successful {@code immRecv}; 0 otherwise. */
    public int immediate() {
        return resultImmediate();
    }

    /** Why the op failed or was cancelled; null while pending or on success. */
    public String failureMessage() {
        Result r = result();
        return r == null ? null : r.message();
    }

    /** Waits until the op completes and returns its status; never throws for a failed op. */
    public TransferStatus await() throws InterruptedException {
        awaitSignal();
        return status();
    }

    /**
     * Waits up to {@code timeout} for the op to complete and returns its status; never throws for a
     * failed op.
     *
     * @throws TimeoutException if it did not complete in time (the op goes on)
     */
    public TransferStatus await(Duration timeout) throws InterruptedException, TimeoutException {
        waitFor(timeout.toNanos());
        return status();
    }

    /**
     * Waits (uninterruptibly, as {@link CompletableFuture#join()}) for completion; returns this
     * future on success.
     *
     * @throws TransferFailedException if the op failed or was cancelled ({@link #status()} says which)
     */
    public TransferFuture join() {
        boolean interrupted = false;
        while (true) {
            try {
                awaitSignal();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return successOrThrow();
    }

    /**
     * Waits up to {@code timeout} for completion, interruptibly; returns this future on success.
     *
     * @throws TransferFailedException if the op failed or was cancelled ({@link #status()} says which)
     * @throws TimeoutException        if it did not complete in time (the op goes on)
     * @throws InterruptedException    if the thread was interrupted while waiting (the op goes on)
     */
    public TransferFuture join(Duration timeout) throws InterruptedException, TimeoutException {
        waitFor(timeout.toNanos());
        return successOrThrow();
    }

    /**
     * Waits for completion, as {@link Future#get()}: returns this future on success.
     *
     * @throws ExecutionException    if the op failed; its cause is a {@link TransferFailedException}
     *                               naming the op, its status and why
     * @throws CancellationException if the op was cancelled ({@link #cancel}, {@link RdmaEndpoint#cancelAll()}
     *                               or {@link RdmaEndpoint#close()})
     */
    @Override
    public TransferFuture get() throws InterruptedException, ExecutionException {
        awaitSignal();
        return report();
    }

    /**
     * As {@link #get()}, waiting at most {@code timeout}.
     *
     * @throws TimeoutException if it did not complete in time (the op goes on)
     */
    @Override
    public TransferFuture get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException,
            TimeoutException {
        waitFor(unit.toNanos(timeout));
        return report();
    }

    /**
     * Cancels this one op unless it completed already, as {@link RdmaEndpoint#cancelAll()} does for
     * every op: it completes CANCELLED (WR_FLUSH_ERR) at once, requests already on the wire still
     * run, and {@link #isSettled()} tells when its memory is no longer touched. A cancelled receive
     * is reported to the peer: its matching send fails with REM_ABORT_ERR and writes nothing, unless
     * that send was matched before the notice arrived (then the data lands in the cancelled buffer);
     * either way it pairs with this receive, so later pairs stay aligned. A cancelled {@code immRecv} lets the
     * next arrival go to the next caller. {@code mayInterruptIfRunning} has no effect: no thread
     * runs the op.
     *
     * @return whether this call cancelled the op
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return cancelOne("cancelled by TransferFuture.cancel()");
    }

    /** Whether the op completed as {@link TransferStatus#CANCELLED}. */
    @Override
    public boolean isCancelled() {
        return status() == TransferStatus.CANCELLED;
    }

    /**
     * A future over every op of {@code futures}, completed when all have completed: it succeeds when
     * all succeeded, and otherwise reports the first op (in the given order) that did not. Waiting
     * on it costs no thread; see {@link TransferBatch}.
     */
    public static TransferBatch allOf(Collection<TransferFuture> futures) {
        if (futures == null) {
            throw new IllegalArgumentException("futures must not be null");
        }
        return new TransferBatch(Collections.unmodifiableList(new ArrayList<>(futures)));
    }

    /** As {@link #allOf(Collection)}. */
    public static TransferBatch allOf(TransferFuture... futures) {
        if (futures == null) {
            throw new IllegalArgumentException("futures must not be null");
        }
        return allOf(Arrays.asList(futures));
    }

    private void waitFor(long nanos) throws InterruptedException, TimeoutException {
        if (!awaitSignal(nanos)) {
            throw new TimeoutException(this + " did not complete within " + Duration.ofNanos(nanos));
        }
    }

    private TransferFuture successOrThrow() {
        if (status() != TransferStatus.SUCCESS) {
            throw new TransferFailedException(this);
        }
        return this;
    }

    /** The outcome of a completed op as {@link Future#get()} reports it. */
    private TransferFuture report() throws ExecutionException {
        return switch (status()) {
            case SUCCESS -> this;
            case CANCELLED -> throw cancellation();
            case FAILED -> throw new ExecutionException(new TransferFailedException(this));
            case PENDING -> throw new IllegalStateException(this + " reported before it completed");
        };
    }

    /** The exception {@link #get()} throws for a cancelled op. */
    CancellationException cancellation() {
        return new CancellationException(kind() + " op " + id() + " CANCELLED: " + failureMessage());
    }

    /**
     * The shared {@link CompletionStage} every stage method of this future forwards to: made on first
     * use (ops whose stage is never asked for cost nothing more) and completed on
     * {@link EndpointConfig#completionExecutor()}, one task per op however many stages hang on it.
     */
    @Override
    CompletableFuture<TransferFuture> stage() {
        CompletableFuture<TransferFuture> s = stage;
        if (s == null) {
            synchronized (this) {
                s = stage;
                if (s == null) {
                    stage = s = newView();
                }
            }
        }
        return s;
    }
}
