package io.slime4j.endpoint;

import io.slime4j.verbs.WcStatus;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Layer 1: the caller's handle on one operation of an {@link RdmaEndpoint}. It holds the op's
 * state and nothing else — never a pooled slot — so it can only ever observe its own op's
 * completion, however long it is kept and however often the slots behind it are reused.
 *
 * <p>Every accessor may be called from any thread at any time. Before completion {@link #status()}
 * is {@link TransferStatus#PENDING}, {@link #wcStatus()} null and the counts 0.
 */
public final class TransferFuture {
    private final OpState op;

    TransferFuture(OpState op) {
        this.op = op;
    }

    OpState op() {
        return op;
    }

    /** A number identifying the op in this endpoint (increasing in call order). */
    public long id() {
        return op.seq;
    }

    /** What the op does. */
    public OpKind kind() {
        return op.kind;
    }

    /** Whether the op has completed (successfully, failed or cancelled). */
    public boolean isDone() {
        return op.isDone();
    }

    /**
     * Whether the wire is done with the op's memory: every request it posted has completed (for a
     * receive: the peer's data or its cancellation has arrived). A successful op is settled when it
     * completes; an op completed by {@link RdmaEndpoint#cancelAll()} may settle later, and its
     * buffers may still be read or written until then.
     */
    public boolean isSettled() {
        return op.isSettled();
    }

    /** The outcome so far. */
    public TransferStatus status() {
        OpState.Result r = op.result();
        return r == null ? TransferStatus.PENDING : r.status();
    }

    /**
     * The verbs status: SUCCESS, the status of the first failed request (e.g. REM_ACCESS_ERR,
     * LOC_LEN_ERR for a send longer than the peer's receive, REM_ABORT_ERR when the peer cancelled the
     * matching send), WR_FLUSH_ERR when cancelled; null while pending.
     */
    public WcStatus wcStatus() {
        OpState.Result r = op.result();
        return r == null ? null : r.wcStatus();
    }

    /**
     * Bytes moved by a successful op: the batch total for read and write, the message length for
     * send and recv (the sender's length, at most the receive's), 0 for {@code immRecv}; 0 unless
     * {@link TransferStatus#SUCCESS}.
     */
    public long byteCount() {
        OpState.Result r = op.result();
        return r == null ? 0 : r.bytes();
    }

    /** The immediate datum received by a successful {@code immRecv}; 0 otherwise. */
    public int immediate() {
        OpState.Result r = op.result();
        return r == null ? 0 : r.immediate();
    }

    /** Why the op failed or was cancelled; null while pending or on success. */
    public String failureMessage() {
        OpState.Result r = op.result();
        return r == null ? null : r.message();
    }

    /** Waits until the op completes and returns its status. */
    public TransferStatus await() throws InterruptedException {
        op.awaitSignal();
        return status();
    }

    /**
     * Waits up to {@code timeout} for the op to complete and returns its status.
     *
     * @throws TimeoutException if it did not complete in time (the op goes on)
     */
    public TransferStatus await(long timeout, TimeUnit unit) throws InterruptedException, TimeoutException {
        if (!op.awaitSignal(unit.toNanos(timeout))) {
            throw new TimeoutException(op + " did not complete within " + timeout + " " + unit);
        }
        return status();
    }

    /** As {@link #await(long, TimeUnit)} with a {@link Duration}. */
    public TransferStatus get(Duration timeout) throws InterruptedException, TimeoutException {
        return await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Waits (uninterruptibly) for completion; returns this future on success.
     *
     * @throws TransferFailedException if the op failed or was cancelled
     */
    public TransferFuture join() {
        boolean interrupted = false;
        while (true) {
            try {
                op.awaitSignal();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (status() != TransferStatus.SUCCESS) {
            throw new TransferFailedException(this);
        }
        return this;
    }

    /**
     * A {@link CompletableFuture} view: completes with this future on success, exceptionally with a
     * {@link TransferFailedException} on failure and a
     * {@link java.util.concurrent.CancellationException} on cancellation.
     *
     * <p>Its dependent stages never run on the endpoint's dispatch thread: the dispatcher only fires
     * the op's signal and hands the view's completion to {@link EndpointConfig#completionExecutor()}
     * (by default a new virtual thread), so a stage that blocks delays nothing but itself. Stages
     * added after completion run on the thread adding them, as usual. Each call returns a new,
     * independent future, so completing or cancelling it affects only that one (never the op).
     */
    public CompletableFuture<TransferFuture> toCompletableFuture() {
        return op.newView();
    }

    /** For logs. */
    @Override
    public String toString() {
        return op.toString();
    }
}
