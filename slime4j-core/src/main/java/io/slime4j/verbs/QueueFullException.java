package io.slime4j.verbs;

/**
 * A post would exceed the send- or receive-queue depth. For the send queue this includes
 * unsignaled requests not yet retired by a later polled signaled completion (the
 * "send queue full" trap of selective signaling): post a signaled request and poll its completion.
 */
public final class QueueFullException extends VerbsException {
    public QueueFullException(String message) {
        super(message);
    }
}
