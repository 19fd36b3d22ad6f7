package io.slime4j.endpoint;

import io.slime4j.verbs.WcStatus;

/**
 * Posting of a one-sided op stopped early: {@link #reason} and {@link #status} go into the op's
 * failure, and {@link #refusal}, if any, is thrown to the caller when nothing of the op reached the
 * wire (without one — the endpoint failed — the call returns the op's FAILED future). Control flow
 * inside {@link IoPath}, never seen outside it (no stack trace).
 */
final class StopPosting extends Exception {
    final String reason;
    final RuntimeException refusal;
    final WcStatus status;

    /** Stopped by the caller's side (a bound, an interrupt, close, a refused post): GENERAL_ERR. */
    StopPosting(String reason, RuntimeException refusal) {
        this(reason, refusal, WcStatus.GENERAL_ERR);
    }

    StopPosting(String reason, RuntimeException refusal, WcStatus status) {
        super(reason, null, false, false);
        this.reason = reason;
        this.refusal = refusal;
        this.status = status;
    }

    /** The endpoint failed ({@code why}, with {@code status}): the op fails with it, the call returns its future. */
    static StopPosting endpointFailed(String endpoint, String why, WcStatus status) {
        return new StopPosting("endpoint " + endpoint + " failed while the op was being posted: " + why, null,
                status == null ? WcStatus.GENERAL_ERR : status);
    }
}
