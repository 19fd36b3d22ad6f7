package io.slime4j.endpoint;

import io.slime4j.verbs.WcStatus;

/**
 * An operation failed or was cancelled: how the {@link TransferFuture#toCompletableFuture()} view
 * completes exceptionally (cancelled operations complete it with a
 * {@link java.util.concurrent.CancellationException} instead), and what {@link TransferFuture#join()}
 * throws.
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
