package io.slime4j.endpoint;

import java.util.Locale;

/**
 * Decides, for every work request of an {@link RdmaEndpoint}, which of its {@code qps} lanes (io
 * queue pairs) carries it: the endpoint's one routing decision, pluggable like libfabric rxm's
 * {@code rxm_qp_selector} (seed 002). One selector instance serves one endpoint (one connection);
 * it is created by the {@link Factory} of {@link EndpointConfig#selector()} and called from any
 * thread, so implementations must be thread-safe, and cheap: they are called once per request.
 *
 * <p>Contract: {@link #select} returns a lane in {@code 0..qps-1}. Message-path types
 * ({@link QpOpType#isMessagePath()}) travel on the message queue pairs, which exist on lane 0 only:
 * a selector must answer 0 for them (the built-ins do); another answer is counted as a misroute and
 * lane 0 is used. The segments of one unit ({@link QpOpType#isSegment()}) are selected in order,
 * first to last, by one thread, with the same message id; RC orders requests only within a queue
 * pair, so a selector that wants them to arrive in order pins them to one lane. The endpoint maps a
 * lane that failed to the next live one, so selectors need not know about failures.
 *
 * <p>Built in, by name ({@link #factory(String)}): {@code single} ({@link #single()}),
 * {@code round-robin} ({@link #roundRobin(boolean)} without lane 0), {@code round-robin-all} (with
 * it), {@code striped} ({@link #striped(long)}).
 */
public interface QpSelector {

    /**
     * The lane, in {@code 0..qps-1}, for one request.
     *
     * @param type      what the request is
     * @param messageId identifies the unit a request belongs to (segments of one unit share it);
     *                  unique per unit within the endpoint
     * @param qps       the number of lanes
     */
    int select(QpOpType type, long messageId, int qps);

    /**
     * How large the stripes of a one-sided unit of {@code length} bytes are: the endpoint cuts the
     * unit into stripes of this size (the last one shorter), each routed as a unit of its own. The
     * default is no striping ({@code length}).
     */
    default long stripeBytes(QpOpType type, long length, int qps) {
        return length;
    }

    /** Called when the endpoint closes: drop any state. */
    default void close() {
    }

    /** Makes one selector per endpoint. */
    @FunctionalInterface
    interface Factory {
        /** A fresh selector for an endpoint with {@code qps} lanes and these settings. */
        QpSelector create(int qps, EndpointConfig config);
    }

    /** The names of the built-in selectors, for error messages and help texts. */
    String NAMES = "single, round-robin, round-robin-all, striped";

    /** {@code single}: always lane 0. Stateless, allocation-free. */
    static QpSelector single() {
        return SingleSelector.INSTANCE;
    }

    /**
     * {@code round-robin}: message-path traffic and lone immediates on lane 0; one-sided units
     * round-robin over lanes 1..qps-1 ({@code includeLaneZero} false, the rxm layout) or over every
     * lane, each segmented unit pinned to one lane from its first segment to its last.
     */
    static QpSelector roundRobin(boolean includeLaneZero) {
        return new RoundRobinSelector(includeLaneZero, RoundRobinSelector.DEFAULT_PIN_CAPACITY);
    }

    /**
     * {@code striped}: one-sided units of at least {@code 2 * minStripeBytes} are cut into
     * {@code ceil(length / qps)}-byte stripes (never below {@code minStripeBytes}), one per lane in
     * turn, so a large op uses every lane at once; smaller units go round-robin whole. Segments of
     * one stripe stay on its lane. Message-path traffic on lane 0.
     */
    static QpSelector striped(long minStripeBytes) {
        return new StripedSelector(minStripeBytes);
    }

    /**
     * The factory of a built-in selector by name (case-insensitive): {@code single},
     * {@code round-robin}, {@code round-robin-all}, {@code striped} (its minimum stripe is
     * {@link EndpointConfig#stripeMinBytes()}).
     *
     * @throws IllegalArgumentException naming the known selectors, for any other name
     */
    static Factory factory(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "single" -> new Named("single", (q, c) -> single());
            case "round-robin" -> new Named("round-robin", (q, c) -> roundRobin(false));
            case "round-robin-all" -> new Named("round-robin-all", (q, c) -> roundRobin(true));
            case "striped" -> new Named("striped", (q, c) -> striped(c.stripeMinBytes()));
            default -> throw new IllegalArgumentException("unknown QP selector '" + name + "'; known: " + NAMES);
        };
    }

    /** A built-in factory that knows its name (its {@code toString}). */
    record Named(String name, Factory factory) implements Factory {
        @Override
        public QpSelector create(int qps, EndpointConfig config) {
            return factory.create(qps, config);
        }

        @Override
        public String toString() {
            return name;
        }

        /** Equal when the names are: two configurations naming one built-in are equal. */
        @Override
        public boolean equals(Object o) {
            return o instanceof Named n && n.name.equals(name);
        }

        @Override
        public int hashCode() {
            return name.hashCode();
        }
    }
}
