package io.slime4j.verbs;

/**
 * A completion queue received more completions than its capacity before they were polled. The
 * completions that fit are still delivered; the queue pairs attached to it are moved to
 * {@link QpState#ERR}. Completions are never dropped silently.
 */
public final class CompletionQueueOverflowException extends VerbsException {
    public CompletionQueueOverflowException(String message) {
        super(message);
    }
}
