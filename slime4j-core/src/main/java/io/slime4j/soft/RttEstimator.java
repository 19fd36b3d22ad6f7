package io.slime4j.soft;

import io.slime4j.verbs.QpConfig;

/**
 * The smoothed round-trip time and its variation (RFC 6298's estimator), and the retransmit
 * timeout derived from them: the configured ACK timeout, or more when the measured round trip
 * (queueing included) needs it, so that a deep queue does not cause spurious retransmissions.
 */
final class RttEstimator {
    private final long ackTimeoutNanos;
    private double srttNanos;
    private double rttVarNanos;
    /** {@link #rto()}, computed when a sample changes it: it is read for every packet sent. */
    private long rtoNanos;

    RttEstimator(long ackTimeoutNanos) {
        this.ackTimeoutNanos = ackTimeoutNanos;
        this.srttNanos = Math.min(ackTimeoutNanos / 4.0, 1_000_000);
        this.rttVarNanos = srttNanos / 2;
        this.rtoNanos = computeRto();
    }

    /** One round-trip measurement. */
    void sample(long nanos) {
        rttVarNanos += (Math.abs(nanos - srttNanos) - rttVarNanos) / 4;
        srttNanos += (nanos - srttNanos) / 8;
        rtoNanos = computeRto();
    }

    private long computeRto() {
        return Math.max(ackTimeoutNanos, (long) (srttNanos + 4 * rttVarNanos));
    }

    double srtt() {
        return srttNanos;
    }

    long ackTimeout() {
        return ackTimeoutNanos;
    }

    /** The retransmit timeout. */
    long rto() {
        return rtoNanos;
    }

    /** The timeout after {@code retries} retries: doubled each time, up to {@link QpConfig#MAX_BACKOFF} times. */
    long backoff(int retries) {
        return rto() * Math.min(1L << Math.min(retries, 20), QpConfig.MAX_BACKOFF);
    }
}
