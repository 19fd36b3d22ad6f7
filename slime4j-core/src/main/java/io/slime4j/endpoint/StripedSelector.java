package io.slime4j.endpoint;

/**
 * The {@code striped} selector (DLSlime's {@code num_qp} behaviour): a one-sided unit of at least
 * twice {@code minStripeBytes} is cut into stripes of {@code ceil(length / qps)} bytes (never fewer
 * than {@code minStripeBytes}), and the stripes go to the lanes in turn, so one large op keeps every
 * lane busy; the op completes when every stripe's requests have completed (its slots count them).
 * Smaller units travel whole, round-robin over every lane. A stripe longer than the request size
 * ({@link EndpointConfig#maxRequestBytes()}, by default the device's) is segmented, and its segments stay on its lane (pinned
 * as by {@code round-robin}). Message-path traffic and lone immediates on lane 0.
 */
final class StripedSelector implements QpSelector {
    private final long minStripeBytes;
    private final RoundRobinSelector lanes = new RoundRobinSelector(true, RoundRobinSelector.DEFAULT_PIN_CAPACITY);

    StripedSelector(long minStripeBytes) {
        if (minStripeBytes < 1) {
            throw new IllegalArgumentException("the minimum stripe must be at least 1 byte, was " + minStripeBytes);
        }
        this.minStripeBytes = minStripeBytes;
    }

    @Override
    public int select(QpOpType type, long messageId, int qps) {
        return lanes.select(type, messageId, qps);
    }

    @Override
    public long stripeBytes(QpOpType type, long length, int qps) {
        if (qps == 1 || length < 2 * minStripeBytes) {
            return length;
        }
        long stripe = (length + qps - 1) / qps;
        return Math.max(stripe, minStripeBytes);
    }

    @Override
    public void close() {
        lanes.close();
    }

    @Override
    public String toString() {
        return "striped(min " + minStripeBytes + " B)";
    }
}
