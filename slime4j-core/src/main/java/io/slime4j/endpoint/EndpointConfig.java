package io.slime4j.endpoint;

import io.slime4j.verbs.QpConfig;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.LoggerFactory;

/**
 * Settings of an {@link RdmaEndpoint}, validated at build time. {@link #builder()} holds the
 * defaults below; {@link #fromEnvironment()} returns them with the system property
 * {@code slime4j.endpoint.NAME} or else the environment variable {@code SLIME4J_ENDPOINT_NAME} of
 * every numeric or duration setting (durations in ISO-8601, e.g. {@code PT5S}).
 *
 * @param name               endpoint name for logs and thread names; empty picks {@code endpoint-N}
 * @param qps                io queue pairs (lanes) that one-sided batches are spread over, 1..64
 *                           (default 1);
 *                           the endpoint adds two more for messages (meta and data)
 * @param ioSlots            pooled slots for one-sided ops, 1..65536 (default 256): an op leases
 *                           one slot per {@code requestsPerSlot} work requests
 * @param requestsPerSlot    work requests one io slot carries, 1..4096 (default 16)
 * @param maxRequestBytes    bytes per work request at most, 0..2^31-1 (default 0: the device's
 *                           {@link io.slime4j.verbs.VerbsDevice#preferredRequestBytes()}, 1 MiB on
 *                           the soft engine and 16 MiB on the shm device; with several rails the
 *                           smallest); a larger assignment is split into several requests, spread
 *                           over the io queue pairs
 * @param messageSlots       send slots and recv slots, each, 1..16384 (default 64): outstanding
 *                           sends and receives at most; also the size of the message data receive
 *                           window. The peer's value must not exceed this endpoint's
 * @param immWindow          receives pre-posted for write-with-imm per io queue pair, 1..65536
 *                           (default 256): the credits the peer may use
 * @param sendQueueDepth     send queue depth of each io queue pair, 1..65536 (default 1024)
 * @param slotTimeout        how long a call waits for a free slot or send-queue credit before it
 *                           fails with {@link EndpointBusyException} (default 30 s)
 * @param pollTimeout        the dispatch thread's bounded wait on the completion queue
 *                           (default 100 ms; it wakes at once on a completion)
 * @param qpTemplate         queue pair attributes (MTU, timers, retries); the endpoint sets the
 *                           depths and the signaling (default {@link QpConfig#defaults()} with
 *                           {@value #DEFAULT_RETRY_COUNT} retries, so that a dead peer is noticed
 *                           within 12.7 s under traffic; see {@link #retryBudget(QpConfig)})
 * @param completionExecutor completes a {@link TransferFuture}'s {@link java.util.concurrent.CompletionStage}
 *                           (one task per op that has dependent stages), so those stages never run
 *                           on the dispatch thread; null (default) starts a virtual thread per such op
 * @param selector           makes the endpoint's {@link QpSelector} (routing of requests over the
 *                           lanes); null (default) picks {@code single} for one QP and
 *                           {@code striped} for several. By name: {@link Builder#selector(String)}
 * @param stripeMinBytes     the smallest stripe of the {@code striped} selector, 1..2^31-1
 *                           (default 256 KiB): units shorter than twice this stay on one lane
 * @param signalEvery        selective signaling of the io queue pairs, 1..65536 (default
 *                           {@value #DEFAULT_SIGNAL_EVERY}): every this many requests on a queue
 *                           pair one is signaled, and always the last request of an op on each
 *                           queue pair it used; 1 signals every request. Capped at half of
 *                           {@code sendQueueDepth} (at least 1), so the send queue can never fill
 *                           with unsignaled requests
 * @param keepalive          liveness of an idle connection (default {@value #DEFAULT_KEEPALIVE_MILLIS} ms;
 *                           zero turns it off, otherwise 10 ms..1 h): when rail 0 has had no
 *                           completion for this long, a probe (a zero-length RDMA write on the meta
 *                           queue pair) goes out, and its running out of retries fails the endpoint.
 *                           From a peer's death to the endpoint's failure: at most
 *                           {@link #detectionBound()}. A peer paused longer than that (a long GC
 *                           pause, a stopped process) is taken for dead
 * @param keepaliveDeadline  the keepalive probe's own deadline, opt-in (default zero: off;
 *                           otherwise 10 ms..1 h, and {@code keepalive} must be on): a probe
 *                           unanswered this long after it went out, with nothing else completed on
 *                           rail 0 meanwhile, fails the endpoint without waiting for its retry
 *                           budget (12.7 s by default), so that a dead peer is noticed sooner idle
 *                           or busy ({@link #detectionBound()} 6.2 s with 4 s and the other
 *                           defaults, rather than 14.8 s). The trade-off: a live peer silent for
 *                           {@code keepalive} plus this long (a long GC pause, a process starved on
 *                           an overloaded host) is taken for dead, for good; hence off by default
 * @param eagerThreshold     eager messages (default {@value #DEFAULT_EAGER_THRESHOLD} bytes; 0 turns
 *                           them off; at most {@value #MAX_EAGER_THRESHOLD}): a {@code send} of at most
 *                           this many bytes goes in one trip into a receive buffer the peer pre-posted
 *                           and is copied into the matching recv's buffer (or held until that recv is
 *                           posted); longer sends are rendezvous. A recv of at most this many bytes
 *                           sends no meta message. Both sides use the smaller of their two values.
 *                           Costs {@code (messageSlots + min(messageSlots, 128)) * eagerThreshold} bytes
 *                           of registered bounce buffers per endpoint (1 MiB by default)
 * <p>Values from system properties and environment variables are clamped into their range, with a
 * warning in the log; values given in code must be in range or the build throws.
 */
public record EndpointConfig(String name, int qps, int ioSlots, int requestsPerSlot, int maxRequestBytes,
                             int messageSlots, int immWindow, int sendQueueDepth, Duration slotTimeout,
                             Duration pollTimeout, QpConfig qpTemplate, Executor completionExecutor,
                             // routing (issue 5)
                             QpSelector.Factory selector, int stripeMinBytes,
                             // selective signaling (issue 6)
                             int signalEvery,
                             // liveness (issue 15, item 2)
                             Duration keepalive, Duration keepaliveDeadline,
                             // eager messages (issue 19, item 4)
                             int eagerThreshold) {

    /** Default of {@link #eagerThreshold()}: 8 KiB, as UCX's eager limit (rxm uses 16 KiB). */
    public static final int DEFAULT_EAGER_THRESHOLD = 8 << 10;

    /** The largest {@link #eagerThreshold()}: every data-window receive has a bounce buffer this long. */
    public static final int MAX_EAGER_THRESHOLD = 64 << 10;

    /**
     * Eager credits an endpoint with {@code messageSlots} gives its peer: the data-window receives it
     * adds for eager messages (and notices) beyond the rendezvous ones: as many as its
     * recv slots, at most 128 (32 starved a sender of small messages: docs/PERFORMANCE.md).
     */
    static int eagerWindow(int messageSlots) {
        return Math.min(messageSlots, 128);
    }

    /** Default of {@link #signalEvery()}, chosen by measurement (docs/PERFORMANCE.md, "Selective signaling"). */
    public static final int DEFAULT_SIGNAL_EVERY = 16;

    /** Default of {@link #keepalive()}, in milliseconds. */
    public static final long DEFAULT_KEEPALIVE_MILLIS = 2_000;

    /**
     * The retry count of the default {@link #qpTemplate()}, the verbs default: with its 100 ms ACK
     * timeout a request the peer stopped answering fails 12.7 s after it was sent (the backoff stops
     * doubling at 3.2 s). Four retries (3.1 s) were tried and dropped: on a lossy wire (10% seeded
     * loss over two rails, RailStressTest) live lanes then ran out of retries. Lower it, with the ACK
     * timeout, for faster detection on a clean network.
     */
    public static final int DEFAULT_RETRY_COUNT = 7;

    /** Meta-queue-pair entries kept for credit messages beyond {@link #messageSlots()}. */
    static final int CREDIT_RESERVE = 8;

    /** The most io queue pairs (lanes) an endpoint may have (the completion queue stays below 2^24 entries; the wrId has 8 bits for the lane). */
    public static final int MAX_QPS = 64;

    /** Validates every setting. */
    public EndpointConfig {
        name = name == null ? "" : name;
        range("qps", qps, 1, MAX_QPS);
        range("ioSlots", ioSlots, 1, 1 << 16);
        range("requestsPerSlot", requestsPerSlot, 1, WrIds.MAX_SUBS);
        range("maxRequestBytes", maxRequestBytes, 0, Integer.MAX_VALUE);
        range("messageSlots", messageSlots, 1, 1 << 14);
        range("immWindow", immWindow, 1, QpConfig.MAX_DEPTH - Transport.RQ_SLACK);
        range("sendQueueDepth", sendQueueDepth, 1, QpConfig.MAX_DEPTH);
        positive("slotTimeout", slotTimeout);
        range("signalEvery", signalEvery, 1, QpConfig.MAX_DEPTH);
        positive("pollTimeout", pollTimeout);
        if (pollTimeout.toMillis() > 10_000) {
            throw new IllegalArgumentException("pollTimeout must be at most 10 s, was " + pollTimeout);
        }
        if (qpTemplate == null) {
            throw new IllegalArgumentException("qpTemplate must not be null");
        }
        range("stripeMinBytes", stripeMinBytes, 1, Integer.MAX_VALUE);
        if (keepalive == null || keepalive.isNegative()
                || (!keepalive.isZero() && (keepalive.toMillis() < 10 || keepalive.toSeconds() > 3600))) {
            throw new IllegalArgumentException("keepalive must be zero (off) or in 10 ms..1 h, was " + keepalive);
        }
        if (keepaliveDeadline == null || keepaliveDeadline.isNegative() || (!keepaliveDeadline.isZero()
                && (keepaliveDeadline.toMillis() < 10 || keepaliveDeadline.toSeconds() > 3600))) {
            throw new IllegalArgumentException("keepaliveDeadline must be zero (off) or in 10 ms..1 h, was "
                    + keepaliveDeadline);
        }
        if (!keepaliveDeadline.isZero() && keepalive.isZero()) {
            throw new IllegalArgumentException("keepaliveDeadline (" + keepaliveDeadline
                    + ") is the keepalive probe's deadline and needs keepalive on, but keepalive is zero (off)");
        }
        range("eagerThreshold", eagerThreshold, 0, MAX_EAGER_THRESHOLD);
        // the ranges above keep WindowSizes.completionQueue(...) below 2^24 (at most about 12.7 million)
    }

    /** The selector factory in use: {@link #selector()}, or the default for {@link #qps()}. */
    public QpSelector.Factory selectorFactory() {
        return selector != null ? selector : QpSelector.factory(qps == 1 ? "single" : "striped");
    }

    /**
     * How long after a peer stops answering (killed, unplugged) this endpoint fails at most:
     * {@link #keepalive()} (the idle time before a probe goes out) plus {@link #pollTimeout()} (how
     * often the dispatcher looks) plus {@link #retryBudget(QpConfig)} of {@link #qpTemplate()} (how
     * long the probe, or any request in flight, is retried) — 14.8 s with the defaults. Under
     * traffic the failure comes sooner, within the retry budget. With a
     * {@link #keepaliveDeadline()}, the shorter of the retry budget and the deadline plus a poll
     * timeout, idle or busy ({@code keepalive + pollTimeout + keepaliveDeadline + pollTimeout} =
     * 6.2 s with a 4 s deadline and the other defaults). It assumes round trips well below the ACK
     * timeout (the engine stretches its timeout to the measured round trip); without a keepalive an
     * idle connection is never checked, and this bounds only requests in flight.
     */
    public Duration detectionBound() {
        Duration retries = retryBudget(qpTemplate);
        if (keepaliveDeadline.isZero()) {
            return keepalive.plus(pollTimeout).plus(retries);
        }
        Duration deadline = keepaliveDeadline.plus(pollTimeout);
        return keepalive.plus(pollTimeout).plus(retries.compareTo(deadline) < 0 ? retries : deadline);
    }

    /**
     * How long a request the peer no longer answers is retried before it fails with RETRY_EXC_ERR:
     * the ACK timeout, doubled on each of {@code retryCount} retries up to
     * {@link QpConfig#MAX_BACKOFF} times, summed.
     */
    public static Duration retryBudget(QpConfig qp) {
        long units = 0;
        for (int i = 0; i <= qp.retryCount(); i++) {
            units += Math.min(1L << i, QpConfig.MAX_BACKOFF);
        }
        return qp.ackTimeout().multipliedBy(units);
    }

    private static void range(String what, long v, long min, long max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(what + " must be in " + min + ".." + max + ", was " + v);
        }
    }

    private static void positive(String what, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be a positive duration, was " + d);
        }
    }

    /** The defaults. */
    public static EndpointConfig defaults() {
        return builder().build();
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The defaults overridden by system properties and environment variables (see
     * {@link #environmentSettings()}), as {@code UdpConfig.fromEnvironment()} does for the wire;
     * {@code fromEnvironment().toBuilder()} adjusts it further in code.
     *
     * @throws IllegalArgumentException if a value there is not a number, a duration or a selector name
     */
    public static EndpointConfig fromEnvironment() {
        return builder().apply(System::getProperty, System.getenv()).build();
    }

    /** A builder initialised from this configuration. */
    public Builder toBuilder() {
        return new Builder().name(name).qps(qps).ioSlots(ioSlots).requestsPerSlot(requestsPerSlot)
                .maxRequestBytes(maxRequestBytes).messageSlots(messageSlots).immWindow(immWindow)
                .sendQueueDepth(sendQueueDepth).slotTimeout(slotTimeout).pollTimeout(pollTimeout)
                .qpTemplate(qpTemplate).completionExecutor(completionExecutor)
                .selector(selector).stripeMinBytes(stripeMinBytes)
                .signalEvery(signalEvery).keepalive(keepalive).keepaliveDeadline(keepaliveDeadline)
                .eagerThreshold(eagerThreshold);
    }

    /** Builds an {@link EndpointConfig}; defaults in the field initialisers. */
    public static final class Builder {
        private String name = "";
        private int qps = 1;
        private int ioSlots = 256;
        private int requestsPerSlot = 16;
        private int maxRequestBytes = 0;
        private int messageSlots = 64;
        private int immWindow = 256;
        private int sendQueueDepth = 1024;
        private Duration slotTimeout = Duration.ofSeconds(30);
        private Duration pollTimeout = Duration.ofMillis(100);
        private QpConfig qpTemplate = QpConfig.builder().retryCount(DEFAULT_RETRY_COUNT).build();
        private Executor completionExecutor;
        // routing (issue 5)
        private QpSelector.Factory selector;
        private int stripeMinBytes = 256 << 10;
        private int signalEvery = DEFAULT_SIGNAL_EVERY;
        // liveness (issue 15, item 2)
        private Duration keepalive = Duration.ofMillis(DEFAULT_KEEPALIVE_MILLIS);
        private Duration keepaliveDeadline = Duration.ZERO;
        // eager messages (issue 19, item 4)
        private int eagerThreshold = DEFAULT_EAGER_THRESHOLD;

        /** Sets {@link EndpointConfig#name()}. */
        public Builder name(String v) { name = v; return this; }
        /** Sets {@link EndpointConfig#qps()}. */
        public Builder qps(int v) { qps = v; return this; }
        /** Sets {@link EndpointConfig#ioSlots()}. */
        public Builder ioSlots(int v) { ioSlots = v; return this; }
        /** Sets {@link EndpointConfig#requestsPerSlot()}. */
        public Builder requestsPerSlot(int v) { requestsPerSlot = v; return this; }
        /** Sets {@link EndpointConfig#maxRequestBytes()}. */
        public Builder maxRequestBytes(int v) { maxRequestBytes = v; return this; }
        /** Sets {@link EndpointConfig#messageSlots()}. */
        public Builder messageSlots(int v) { messageSlots = v; return this; }
        /** Sets {@link EndpointConfig#immWindow()}. */
        public Builder immWindow(int v) { immWindow = v; return this; }
        /** Sets {@link EndpointConfig#sendQueueDepth()}. */
        public Builder sendQueueDepth(int v) { sendQueueDepth = v; return this; }
        /** Sets {@link EndpointConfig#slotTimeout()}. */
        public Builder slotTimeout(Duration v) { slotTimeout = v; return this; }
        /** Sets {@link EndpointConfig#pollTimeout()}. */
        public Builder pollTimeout(Duration v) { pollTimeout = v; return this; }
        /** Sets {@link EndpointConfig#qpTemplate()}. */
        public Builder qpTemplate(QpConfig v) { qpTemplate = v; return this; }
        /** Sets {@link EndpointConfig#completionExecutor()}. */
        public Builder completionExecutor(Executor v) { completionExecutor = v; return this; }
        /** Sets {@link EndpointConfig#signalEvery()}. */
        public Builder signalEvery(int v) { signalEvery = v; return this; }
        /** Sets {@link EndpointConfig#eagerThreshold()}; 0 turns eager messages off. */
        public Builder eagerThreshold(int v) { eagerThreshold = v; return this; }
        /** Sets {@link EndpointConfig#keepalive()}; {@link Duration#ZERO} turns it off. */
        public Builder keepalive(Duration v) { keepalive = v; return this; }
        /** Sets {@link EndpointConfig#keepaliveDeadline()}; {@link Duration#ZERO} (the default) turns it off. */
        public Builder keepaliveDeadline(Duration v) { keepaliveDeadline = v; return this; }

        // routing (issue 5)
        /** Sets {@link EndpointConfig#selector()}: a custom selector's factory, or null for the default. */
        public Builder selector(QpSelector.Factory v) { selector = v; return this; }
        /**
         * Sets {@link EndpointConfig#selector()} by the name of a built-in ({@value QpSelector#NAMES});
         * null or {@code default} for the default.
         *
         * @throws IllegalArgumentException for an unknown name
         */
        public Builder selector(String name) {
            selector = name == null || name.isBlank() || name.trim().equalsIgnoreCase("default") ? null
                    : QpSelector.factory(name);
            return this;
        }
        /** Sets {@link EndpointConfig#stripeMinBytes()}. */
        public Builder stripeMinBytes(int v) { stripeMinBytes = v; return this; }

        /** Applies {@code slime4j.endpoint.NAME} from {@code properties}, else {@code SLIME4J_ENDPOINT_NAME} from {@code env}. */
        Builder apply(Function<String, String> properties, Map<String, String> env) {
            Function<String, String> get = key -> {
                String v = properties.apply("slime4j.endpoint." + key);
                return v != null ? v : env.get("SLIME4J_ENDPOINT_" + key.replaceAll("([A-Z])", "_$1").toUpperCase());
            };
            String v;
            if ((v = get.apply("name")) != null) name = v;
            if ((v = get.apply("qps")) != null) qps = clamp("qps", parse("qps", v), 1, MAX_QPS);
            if ((v = get.apply("ioSlots")) != null) ioSlots = parse("ioSlots", v);
            if ((v = get.apply("requestsPerSlot")) != null) requestsPerSlot = parse("requestsPerSlot", v);
            if ((v = get.apply("maxRequestBytes")) != null) maxRequestBytes = parse("maxRequestBytes", v);
            if ((v = get.apply("messageSlots")) != null) messageSlots = parse("messageSlots", v);
            if ((v = get.apply("immWindow")) != null) immWindow = parse("immWindow", v);
            if ((v = get.apply("sendQueueDepth")) != null) sendQueueDepth = parse("sendQueueDepth", v);
            if ((v = get.apply("slotTimeout")) != null) slotTimeout = duration("slotTimeout", v);
            if ((v = get.apply("pollTimeout")) != null) pollTimeout = duration("pollTimeout", v);
            // routing (issue 5)
            if ((v = get.apply("selector")) != null) selector(v);
            if ((v = get.apply("stripeMinBytes")) != null) {
                stripeMinBytes = clamp("stripeMinBytes", parse("stripeMinBytes", v), 1, Integer.MAX_VALUE);
            }
            if ((v = get.apply("signalEvery")) != null) {
                signalEvery = clamp("signalEvery", parse("signalEvery", v), 1, QpConfig.MAX_DEPTH);
            }
            if ((v = get.apply("keepalive")) != null) keepalive = duration("keepalive", v);
            if ((v = get.apply("keepaliveDeadline")) != null) keepaliveDeadline = duration("keepaliveDeadline", v);
            if ((v = get.apply("eagerThreshold")) != null) {
                eagerThreshold = clamp("eagerThreshold", parse("eagerThreshold", v), 0, MAX_EAGER_THRESHOLD);
            }
            return this;
        }

        /** Clamps a value that came from a property or the environment into its range, saying so. */
        private static int clamp(String what, int v, int min, int max) {
            int c = Math.max(min, Math.min(max, v));
            if (c != v) {
                LoggerFactory.getLogger(EndpointConfig.class).warn(
                        "endpoint setting {} = {} is outside {}..{}; clamped to {}", what, v, min, max, c);
            }
            return c;
        }

        private static Duration duration(String what, String v) {
            try {
                return Duration.parse(v.trim());
            } catch (java.time.format.DateTimeParseException e) {
                throw new IllegalArgumentException(what + " must be an ISO-8601 duration such as PT4S, was '" + v + "'", e);
            }
        }

        private static int parse(String what, String v) {
            try {
                return Integer.parseInt(v.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(what + " must be an integer, was '" + v + "'", e);
            }
        }

        /** Validates and builds. */
        public EndpointConfig build() {
            return new EndpointConfig(name, qps, ioSlots, requestsPerSlot, maxRequestBytes, messageSlots, immWindow,
                    sendQueueDepth, slotTimeout, pollTimeout, qpTemplate, completionExecutor,
                    selector, stripeMinBytes,
                    signalEvery, keepalive, keepaliveDeadline, eagerThreshold);
        }
    }

    /**
     * The settings {@link #fromEnvironment()} reads, in declaration order: each system property
     * (key) with its environment variable (value). The property's last part names the record
     * component, so tools such as {@code slime4j info} can show the value in effect.
     */
    public static Map<String, String> environmentSettings() {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (String key : new String[] {"name", "qps", "ioSlots", "requestsPerSlot", "maxRequestBytes", "messageSlots",
                "immWindow", "sendQueueDepth", "slotTimeout", "pollTimeout", "selector", "stripeMinBytes", "signalEvery",
                "keepalive", "keepaliveDeadline", "eagerThreshold"}) {
            m.put("slime4j.endpoint." + key, "SLIME4J_ENDPOINT_" + key.replaceAll("([A-Z])", "_$1").toUpperCase());
        }
        return java.util.Collections.unmodifiableMap(m);
    }
}
