package io.slime4j.endpoint;

/** The outcome of an operation, as {@link TransferFuture#status()} reports it. */
public enum TransferStatus {
    /** Not completed yet. */
    PENDING,
    /** Completed: every byte is in place (and, for {@code immRecv}, the datum is available). */
    SUCCESS,
    /** Failed; {@link TransferFuture#wcStatus()} and {@link TransferFuture#failureMessage()} say why. */
    FAILED,
    /** Completed by {@link RdmaEndpoint#cancelAll()} or {@link RdmaEndpoint#close()} before it finished. */
    CANCELLED;

    /** Whether the operation has completed, successfully or not. */
    public boolean isDone() {
        return this != PENDING;
    }
}
