package io.slime4j.endpoint;

import io.slime4j.verbs.WcStatus;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * Liveness of an idle connection (issue 15, item 2), built on the transport's own retransmission:
 * when rail 0 has had no completion for the keepalive interval, one probe goes out on the reliable
 * stream — a zero-length RDMA write on the meta queue pair, which the peer's responder
 * acknowledges without touching memory or consuming a receive. A live peer's ACK completes it (and
 * counts as traffic); a dead or unreachable peer lets it run out of retries (RETRY_EXC_ERR), and
 * that fails the endpoint — every op it holds FAILED at once ({@link EndpointFailure}). At most one
 * probe is outstanding, and none is sent while completions keep arriving, so a busy connection
 * carries no probes at all (its own requests' retries detect a dead peer).
 *
 * <p>Optionally ({@link EndpointConfig#keepaliveDeadline()}, off by default) a probe also has a
 * deadline of its own: that long after it went out (or after the rail's last completion, if later)
 * with neither its acknowledgement nor any other completion, the endpoint fails without waiting for
 * the probe's retry budget (12.7 s with the default seven retries). This bounds detection under
 * traffic too: after a peer's death its rail goes quiet, a probe goes out an interval later and
 * fails at its deadline. The price: a live peer silent that long (a long GC pause, a starved
 * process) is taken for dead, which is why it is off unless asked for.
 *
 * <p>Times are arguments ({@link #tick}, {@link #traffic}), so a test drives it with its own clock.
 * Thread-safe: {@link #tick} runs on rail 0's dispatch thread, {@link #traffic} and
 * {@link #onCompletion} on whoever handles that rail's completions.
 */
final class Keepalive {
    private final String endpoint;
    private final long intervalNanos;
    private final long deadlineNanos;
    private final BooleanSupplier mayProbe;
    private final LongConsumer post;
    private final BiConsumer<WcStatus, String> fail;
    private final AtomicBoolean outstanding = new AtomicBoolean();
    private final AtomicBoolean expired = new AtomicBoolean();
    private final LongAdder probes = new LongAdder();
    private volatile long lastTraffic;

    /**
     * @param intervalNanos idle time before a probe, 0 for none
     * @param deadlineNanos how long a probe may go unanswered, with no other completion on the rail,
     *                      before the endpoint fails; 0 for no deadline (only its retries fail it)
     * @param mayProbe      whether a probe may go out now (connected, neither failed nor closing)
     * @param post          posts a probe with the given wrId; throws if it cannot
     * @param fail          fails the endpoint with a status and a reason
     */
    Keepalive(String endpoint, long intervalNanos, long deadlineNanos, long now, BooleanSupplier mayProbe,
              LongConsumer post, BiConsumer<WcStatus, String> fail) {
        this.endpoint = endpoint;
        this.intervalNanos = intervalNanos;
        this.deadlineNanos = deadlineNanos;
        this.mayProbe = mayProbe;
        this.post = post;
        this.fail = fail;
        this.lastTraffic = now;
    }

    /** The wrId of every probe. */
    static long wrId() {
        return WrIds.encode(WrIds.KEEPALIVE, 0, 0, 0, 0);
    }

    /** A completion of the rail arrived at {@code now}: the peer answers. */
    void traffic(long now) {
        lastTraffic = now;
    }

    /**
     * Sends a probe if the rail has been idle for the interval and none is outstanding; whether it
     * did. With a deadline, fails the endpoint (once) when the outstanding probe has gone unanswered,
     * and nothing else completed on the rail, for that long.
     */
    boolean tick(long now) {
        if (intervalNanos == 0) {
            return false;
        }
        if (!mayProbe.getAsBoolean()) {
            lastTraffic = now; // not connected yet: the idle time counts from when probing may begin
            return false;
        }
        if (deadlineNanos > 0 && outstanding.get() && now - lastTraffic >= deadlineNanos
                && expired.compareAndSet(false, true)) {
            fail.accept(WcStatus.RETRY_EXC_ERR, "the keepalive probe on the meta queue pair was not acknowledged within "
                    + deadlineNanos / 1_000_000 + " ms (keepaliveDeadline), nor anything else completed on rail 0"
                    + " (the peer stopped answering)");
            return false;
        }
        if (now - lastTraffic < intervalNanos || !outstanding.compareAndSet(false, true)) {
            return false;
        }
        try {
            post.accept(wrId());
            probes.increment();
            lastTraffic = now; // the next probe no sooner than an interval after this one
            return true;
        } catch (RuntimeException e) {
            outstanding.set(false); // the queue pair is going down (closing, failed): nothing to probe
            Lifecycle.log().debug("endpoint {}: keepalive probe not posted: {}", endpoint, e.getMessage());
            return false;
        }
    }

    /** The probe completed with {@code status} on queue pair {@code qpn}; a failure (other than a flush) fails the endpoint. */
    void onCompletion(WcStatus status, int qpn) {
        outstanding.set(false);
        if (status != WcStatus.SUCCESS && status != WcStatus.WR_FLUSH_ERR) {
            fail.accept(status, "the keepalive probe on queue pair " + qpn + " failed with " + status
                    + (status == WcStatus.RETRY_EXC_ERR ? " (the peer stopped answering)" : ""));
        }
    }

    /** Whether a probe is outstanding. */
    boolean isProbing() {
        return outstanding.get();
    }

    /** Probes sent so far. */
    long probes() {
        return probes.sum();
    }
}
