package io.slime4j.endpoint;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A batch of operations seen as one: what {@link TransferFuture#allOf} returns. It completes when
 * every op has completed — never earlier, even when one fails, so that once it is done no op of the
 * batch is pending — and then succeeds if all succeeded. Otherwise its outcome is a cancellation if
 * any op was cancelled, else the failure of the first failed op in the batch's order.
 *
 * <p>Waiting ({@link #join()}, {@link #join(Duration)}, {@link #get()}, {@link #get(long, TimeUnit)})
 * waits on each op in turn on the calling thread: no thread, no allocation per op. The
 * {@link CompletionStage} methods hang on a {@link CompletableFuture} made on first use from the
 * ops' own stages, so, as with {@link TransferFuture}, dependent stages never run on an endpoint or
 * engine thread; that costs one completion task per op of the batch.
 */
public final class TransferBatch extends ForwardingStage<List<TransferFuture>> implements Future<List<TransferFuture>> {
    private final List<TransferFuture> futures;
    private volatile CompletableFuture<List<TransferFuture>> stage;

    TransferBatch(List<TransferFuture> futures) {
        for (TransferFuture f : futures) {
            if (f == null) {
                throw new IllegalArgumentException("a batch must not contain null futures");
            }
        }
        this.futures = futures;
    }

    /** The ops of the batch, in the order given. */
    public List<TransferFuture> futures() {
        return futures;
    }

    /** Whether every op has completed. */
    @Override
    public boolean isDone() {
        for (TransferFuture f : futures) {
            if (!f.isDone()) {
                return false;
            }
        }
        return true;
    }

    /** Whether every op is settled: the wire touches none of the batch's memory any more. */
    public boolean isSettled() {
        for (TransferFuture f : futures) {
            if (!f.isSettled()) {
                return false;
            }
        }
        return true;
    }

    /** Whether the batch is done and an op of it was cancelled. */
    @Override
    public boolean isCancelled() {
        return isDone() && firstNot(TransferStatus.SUCCESS, true) != null;
    }

    /**
     * Cancels every op of the batch that has not completed ({@link TransferFuture#cancel}).
     *
     * @return whether this call cancelled at least one op
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean any = false;
        for (TransferFuture f : futures) {
            any |= f.cancel(mayInterruptIfRunning);
        }
        return any;
    }

    /**
     * Waits uninterruptibly until every op has completed.
     *
     * @throws TransferFailedException for the first op (in the batch's order) that failed or was cancelled
     */
    public TransferBatch join() {
        for (TransferFuture f : futures) {
            try {
                f.join();
            } catch (TransferFailedException ignored) {
                // every op is waited for; the outcome is decided below
            }
        }
        return successOrThrow();
    }

    /**
     * Waits up to {@code timeout} in all, interruptibly, until every op has completed.
     *
     * @throws TransferFailedException for the first op (in the batch's order) that failed or was cancelled
     * @throws TimeoutException        if some op had not completed in time (the ops go on)
     */
    public TransferBatch join(Duration timeout) throws InterruptedException, TimeoutException {
        waitAll(timeout.toNanos());
        return successOrThrow();
    }

    /**
     * Waits until every op has completed, as {@link Future#get()}; returns the ops.
     *
     * @throws CancellationException if an op was cancelled
     * @throws ExecutionException    otherwise, if an op failed: its cause is the first failed op's
     *                               {@link TransferFailedException}
     */
    @Override
    public List<TransferFuture> get() throws InterruptedException, ExecutionException {
        for (TransferFuture f : futures) {
            f.await();
        }
        return report();
    }

    /**
     * As {@link #get()}, waiting at most {@code timeout} in all.
     *
     * @throws TimeoutException if some op had not completed in time (the ops go on)
     */
    @Override
    public List<TransferFuture> get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException,
            TimeoutException {
        waitAll(unit.toNanos(timeout));
        return report();
    }

    private void waitAll(long nanos) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + nanos;
        for (TransferFuture f : futures) {
            if (!f.isDone()) {
                f.await(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            }
        }
    }

    /** The first op with a status other than {@code status} (cancelled ones only, if asked), or null. */
    private TransferFuture firstNot(TransferStatus status, boolean cancelledOnly) {
        for (TransferFuture f : futures) {
            TransferStatus s = f.status();
            if (s != status && (!cancelledOnly || s == TransferStatus.CANCELLED)) {
                return f;
            }
        }
        return null;
    }

    private TransferBatch successOrThrow() {
        TransferFuture bad = firstNot(TransferStatus.SUCCESS, false);
        if (bad != null) {
            throw new TransferFailedException(bad);
        }
        return this;
    }

    private List<TransferFuture> report() throws ExecutionException {
        TransferFuture cancelled = firstNot(TransferStatus.SUCCESS, true);
        if (cancelled != null) {
            throw cancelled.cancellation();
        }
        TransferFuture failed = firstNot(TransferStatus.SUCCESS, false);
        if (failed != null) {
            throw new ExecutionException(new TransferFailedException(failed));
        }
        return futures;
    }

    /** Completed (off the dispatch thread) by whichever op's stage completes last. */
    @Override
    CompletableFuture<List<TransferFuture>> stage() {
        CompletableFuture<List<TransferFuture>> s = stage;
        if (s == null) {
            synchronized (this) {
                s = stage;
                if (s == null) {
                    CompletableFuture<?>[] parts = new CompletableFuture<?>[futures.size()];
                    for (int i = 0; i < parts.length; i++) {
                        parts[i] = futures.get(i).stage();
                    }
                    CompletableFuture<List<TransferFuture>> result = new CompletableFuture<>();
                    CompletableFuture.allOf(parts).whenComplete((v, e) -> {
                        try {
                            result.complete(report());
                        } catch (CancellationException | ExecutionException x) {
                            result.completeExceptionally(x instanceof ExecutionException ? x.getCause() : x);
                        }
                    });
                    stage = s = result;
                }
            }
        }
        return s;
    }

    /** For logs. */
    @Override
    public String toString() {
        return "TransferBatch{" + futures.size() + " ops" + (isDone() ? ", done" : "") + "}";
    }
}
