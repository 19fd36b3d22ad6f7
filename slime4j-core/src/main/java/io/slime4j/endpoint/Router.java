package io.slime4j.endpoint;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The endpoint's side of routing: asks the {@link QpSelector} for every request, checks its answer,
 * moves a request off a lane that failed onto the next live one, and traces each decision at TRACE
 * on the logger {@code io.slime4j.endpoint.routing} (guarded by {@code isTraceEnabled()}: nothing is
 * formatted or allocated when it is off). Also hands out message ids and keeps the set of live
 * lanes. Thread-safe.
 */
final class Router {
    /** The routing trace logger (rxm's FI_LOG_EP_DATA selection trace). */
    static final Logger TRACE = LoggerFactory.getLogger("io.slime4j.endpoint.routing");

    private final String endpoint;
    private final QpSelector selector;
    private final int qps;
    private final AtomicIntegerArray dead;
    /** Lanes whose queue pair is being re-established ({@link LaneRecovery}): out of the rotation for now. */
    private final AtomicIntegerArray recovering;
    private volatile int recoveringCount;
    private final AtomicLong messageIds = new AtomicLong();
    private volatile int deadCount;
    /** Answers of the selector for message-path types other than lane 0 (a selector bug). */
    final LongAdder misroutes = new LongAdder();
    /** Requests moved off a failed lane at selection. */
    final LongAdder rerouted = new LongAdder();

    Router(String endpoint, QpSelector selector, int qps) {
        if (selector == null) {
            throw new IllegalArgumentException("endpoint " + endpoint + ": the QP selector factory returned null");
        }
        this.endpoint = endpoint;
        this.selector = selector;
        this.qps = qps;
        this.dead = new AtomicIntegerArray(qps);
        this.recovering = new AtomicIntegerArray(qps);
    }

    QpSelector selector() {
        return selector;
    }

    int qps() {
        return qps;
    }

    /** A fresh message id: one per routed unit (a stripe, an assignment, a message). */
    long newMessageId() {
        return messageIds.incrementAndGet();
    }

    /**
     * The lane for one request of {@code type}. Message-path types ({@link QpOpType#isMessagePath})
     * always get lane 0 and never throw: their queue pairs exist on lane 0 only, the selector is
     * asked just to trace and count, and the message path asks after leasing a slot and on the
     * dispatch thread, where a throw would leak the slot or leave an op pending. Any other answer
     * for them, an out-of-range one or an exception of the selector included, is a misroute.
     *
     * @throws EndpointException when every lane has failed, or the selector answered out of range
     */
    int select(QpOpType type, long messageId) {
        if (type.isMessagePath()) {
            return messagePath(type, messageId);
        }
        int lane = selector.select(type, messageId, qps);
        if (lane < 0 || lane >= qps) {
            throw new EndpointException("endpoint " + endpoint + ": QP selector " + selector + " chose lane " + lane
                    + " for " + type + "; lanes are 0.." + (qps - 1));
        }
        if (isDead(lane)) {
            rerouted.increment();
            lane = liveAfter(lane);
        }
        if (TRACE.isTraceEnabled()) {
            TRACE.trace("endpoint {}: {} message {} -> lane {}", endpoint, type, messageId, lane);
        }
        return lane;
    }

    private int messagePath(QpOpType type, long messageId) {
        int lane;
        try {
            lane = selector.select(type, messageId, qps);
        } catch (RuntimeException e) {
            lane = -1;
        }
        if (lane != 0) {
            misroutes.increment(); // the message queue pairs exist on lane 0 only
        }
        if (TRACE.isTraceEnabled()) {
            TRACE.trace("endpoint {}: {} message {} -> lane 0", endpoint, type, messageId);
        }
        return 0;
    }

    /** Whether {@code lane} is out of the rotation: failed for good, or being re-established. */
    boolean isDead(int lane) {
        return (deadCount > 0 && dead.get(lane) != 0) || isRecovering(lane);
    }

    /** Whether {@code lane}'s queue pair is being re-established after a remote access error. */
    boolean isRecovering(int lane) {
        return recoveringCount > 0 && recovering.get(lane) != 0;
    }

    /** Takes {@code lane} out of the rotation while its queue pair is re-established (it still counts as live). */
    void markRecovering(int lane) {
        if (recovering.compareAndSet(lane, 0, 1)) {
            synchronized (this) {
                recoveringCount++;
            }
        }
    }

    /** Puts a re-established {@code lane} back into the rotation. */
    void recovered(int lane) {
        if (recovering.compareAndSet(lane, 1, 0)) {
            synchronized (this) {
                recoveringCount--;
            }
        }
    }

    /**
     * Takes {@code lane} out of the rotation. Returns the live lanes left (0: the endpoint has no
     * lane for one-sided traffic any more).
     */
    int markDead(int lane) {
        recovered(lane);
        if (dead.compareAndSet(lane, 0, 1)) {
            synchronized (this) {
                deadCount++;
            }
            Lifecycle.log().warn("endpoint {}: lane {} failed and leaves the rotation ({} of {} lanes live)", endpoint,
                    lane, qps - deadCount, qps);
        }
        return qps - deadCount;
    }

    /** Whether some lane is in the rotation: neither failed for good nor being re-established. */
    boolean hasLiveLane() {
        for (int q = 0; q < qps; q++) {
            if (dead.get(q) == 0 && recovering.get(q) == 0) {
                return true;
            }
        }
        return false;
    }

    /** Lanes not failed for good (being re-established included). */
    int liveLanes() {
        return qps - deadCount;
    }

    /** Whether {@code lane} failed for good ({@link #markDead}); a lane being re-established has not. */
    boolean hasFailed(int lane) {
        return deadCount > 0 && dead.get(lane) != 0;
    }

    /**
     * The next live lane after {@code lane} (cyclically); when every lane not failed is being
     * re-established, one of those (its requests fail with WR_FLUSH_ERR until it is back: see
     * {@link LaneRecovery}).
     */
    int liveAfter(int lane) {
        for (int i = 1; i <= qps; i++) {
            int q = (lane + i) % qps;
            if (dead.get(q) == 0 && recovering.get(q) == 0) {
                return q;
            }
        }
        for (int i = 1; i <= qps; i++) {
            int q = (lane + i) % qps;
            if (dead.get(q) == 0) {
                return q;
            }
        }
        throw new EndpointException("endpoint " + endpoint + ": every lane failed; close it and create a new one");
    }

    @Override
    public String toString() {
        return selector + " over " + qps + " lanes" + (deadCount > 0 ? " (" + deadCount + " failed)" : "");
    }
}
