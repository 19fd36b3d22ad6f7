package io.slime4j.endpoint;

/**
 * Posting of a one-sided op stopped early: {@link #reason} goes into the op's failure, and
 * {@link #refusal} is thrown to the caller when nothing of the op reached the wire. Control flow
 * inside {@link IoPath}, never seen outside it (no stack trace).
 */
final class StopPosting extends Exception {
    final String reason;
    final RuntimeException refusal;

    StopPosting(String reason, RuntimeException refusal) {
        super(reason, null, false, false);
        this.reason = reason;
        this.refusal = refusal;
    }
}
