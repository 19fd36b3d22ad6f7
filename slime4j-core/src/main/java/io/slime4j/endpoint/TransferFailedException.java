package io.slime4j.endpoint;

import io.slime4j.verbs.WcStatus;

/**
 * An operation failed or was cancelled; the message names the op, its {@link TransferStatus}, its
 * verbs status and why. {@link TransferFuture#join()} throws it for a failed or cancelled op;
 * {@link TransferFuture#get()} wraps it in an {@link java.util.concurrent.ExecutionException} for a
 * failed one (a cancelled one throws {@link java.util.concurrent.CancellationException}), and the
 * future's dependent stages see it (or the cancellation) as their exception.
 */
public final class TransferFailedException extends EndpointException {
    private final transient TransferFuture future;

    TransferFailedException(TransferFuture future) {
        super(future.kind() + " op " + future.id() + " " + future.status() + " (" + future.wcStatus() + "): "
                + future.failureMessage());
        this.future = future;
    }

    /** The failed operation. */
    public TransferFuture future() {
        return future;
    }

    /** Its verbs-level status. */
    public WcStatus wcStatus() {
        return future.wcStatus();
    }
}
