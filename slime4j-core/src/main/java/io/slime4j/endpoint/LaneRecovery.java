package io.slime4j.endpoint;

import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.WcStatus;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * One bad request fails alone (issue 15, item 4): after a remote access error on an io lane (a bad
 * key, an offset past a region's end, a missing access flag: REM_ACCESS_ERR or REM_INV_REQ_ERR),
 * the lane's queue pair is in ERR (the verbs contract), and this re-establishes it with the peer
 * instead of failing the endpoint. The verbs layer has no RESET, so both sides replace the lane's
 * queue pair by a fresh one (new queue pair numbers, new first packet sequence numbers): a packet
 * of the old pair can never be taken by the new one.
 *
 * <pre>
 *  side that saw the error (A)                      peer (B)
 *  lane out of rotation, fresh QP (INIT, imm
 *  window posted)  ── LANE_RESET(lane, e, qp) ──►   lane out of rotation, fresh QP, connected to A's;
 *                                                   old QP to ERR (its requests flush)
 *  connect fresh QP to B's ◄── LANE_READY(lane, e, qp) ──
 *  each side, once every request of the old QP has completed: the lane posts on the fresh QP, the
 *  old one is destroyed, the lane is back in rotation (epoch e)
 * </pre>
 *
 * Both messages travel on the meta queue pair (reliable, in order). Epochs count the rounds of a
 * lane on both sides; a message for another epoch is stale and dropped (counted). When both sides
 * start a round of the same lane at once, the side whose (address, meta qpn) is smaller keeps its
 * own: the other answers it with the fresh queue pair it had made. A round not finished within
 * {@code boundNanos} (the endpoint's detection bound: the peer does not answer, dead or paused)
 * fails the endpoint, as the keepalive would; a round that cannot go on for a local reason (no
 * fresh queue pair) takes the lane out for good instead, the last lane failing the endpoint.
 *
 * <p>Times are arguments ({@link #tick}, and the {@code now} of each event), so a test drives it
 * with its own clock. Thread-safe: faults arrive on the lane's rail's dispatch thread, messages
 * and ticks on rail 0's.
 */
final class LaneRecovery {
    /** Meta receives (and meta send-queue entries) kept per lane: a reset and an answer. */
    static final int META_RESERVE_PER_LANE = 2;

    /** What recovery does to the transport; {@link Transport} and the lanes' send queues in the endpoint. */
    interface Lanes {
        /** The number of lane {@code lane}'s current queue pair. */
        int qpn(int lane);

        /** A fresh queue pair for the lane, in INIT, its imm window posted; its info for the peer. */
        QpInfo prepare(int lane);

        /** Connects the lane's fresh queue pair to {@code remote} and moves the old one to ERR. */
        void connect(int lane, QpInfo remote);

        /** Moves the lane to its fresh queue pair if nothing of the old one is outstanding; whether it did. */
        boolean adoptIfDrained(int lane);

        /** Drops the lane's fresh queue pair (the round was abandoned). */
        void discard(int lane);

        /** Sends a lane message (type {@link Wire32#LANE_RESET_TYPE} or {@link Wire32#LANE_READY_TYPE}). */
        void send(int type, int lane, int epoch, QpInfo fresh);

        /** The peer's statement of the write-with-imm requests it posted on the lane's old queue pair. */
        void peerPosted(int lane, Wire32.Lane message);

        /** The peer's info for lane {@code lane}'s queue pair with the given fields (its address). */
        QpInfo remote(int lane, Wire32.Lane message);
    }

    private enum State { IDLE, REQUESTED, DRAINING }

    private final String endpoint;
    private final Lanes lanes;
    private final Router router;
    private final long boundNanos;
    private final BooleanSupplier winsTies;
    private final BooleanSupplier active;
    private final BiConsumer<WcStatus, String> fail;
    private final Runnable changed;
    private final State[] state;
    private final int[] epoch;
    private final long[] deadline;
    private final QpInfo[] mine;
    private final WcStatus[] cause;
    private final Wire32.Lane[] pendingReset;
    /** Lanes draining: read without the lock on every io completion. */
    private volatile int draining;

    /** Rounds started here (a remote access error), rounds completed, stale messages, abandoned rounds. */
    final LongAdder started = new LongAdder();
    final LongAdder completed = new LongAdder();
    final LongAdder stale = new LongAdder();
    final LongAdder abandoned = new LongAdder();

    /**
     * @param boundNanos how long a round may take before the lane is given up
     * @param winsTies   whether this side's round stands when both start one for a lane at once
     * @param active     whether rounds may run (connected, neither failed nor closing)
     * @param fail       fails the endpoint with a status and a reason (no live lane left)
     * @param changed    told whenever a round ends (a lane back, given up or failed): requests parked
     *                   while no lane was live may run or fail now
     */
    LaneRecovery(String endpoint, int qps, Lanes lanes, Router router, long boundNanos, BooleanSupplier winsTies,
                 BooleanSupplier active, BiConsumer<WcStatus, String> fail, Runnable changed) {
        this.changed = changed;
        this.endpoint = endpoint;
        this.lanes = lanes;
        this.router = router;
        this.boundNanos = boundNanos;
        this.winsTies = winsTies;
        this.active = active;
        this.fail = fail;
        this.state = new State[qps];
        java.util.Arrays.fill(state, State.IDLE);
        this.epoch = new int[qps];
        this.deadline = new long[qps];
        this.mine = new QpInfo[qps];
        this.cause = new WcStatus[qps];
        this.pendingReset = new Wire32.Lane[qps];
    }

    /** Whether {@code status} is a remote access error this recovers from. */
    static boolean recoverable(WcStatus status) {
        return status == WcStatus.REM_ACCESS_ERR || status == WcStatus.REM_INV_REQ_ERR;
    }

    /**
     * A request of lane {@code lane}'s queue pair {@code qpn} failed with {@code status}. Returns
     * whether this handles it: a round started (a remote access error on a lane in the rotation), a
     * round of the lane already running (any status: the queue pair is being replaced anyway), or
     * the queue pair already replaced. False: not recoverable here, the lane fails as before.
     */
    synchronized boolean onFault(int lane, int qpn, WcStatus status, long now) {
        if (qpn != lanes.qpn(lane)) {
            return true; // a late completion of a queue pair already replaced: nothing of the lane's now
        }
        if (!active.getAsBoolean()) {
            return false;
        }
        if (state[lane] != State.IDLE) {
            // a round already under way replaces this queue pair, whatever else it fails with (a
            // request that ran out of retries before the pair went to ERR, say): the round decides the
            // lane's fate, at its end or its bound, so the router keeps it recovering, not failed
            return true;
        }
        if (!recoverable(status) || router.hasFailed(lane)) {
            return false;
        }
        router.markRecovering(lane);
        try {
            mine[lane] = lanes.prepare(lane);
            lanes.send(Wire32.LANE_RESET_TYPE, lane, next(lane), mine[lane]);
        } catch (RuntimeException e) {
            Lifecycle.log().warn("endpoint {}: lane {} could not be re-established: {}", endpoint, lane, e.toString());
            lanes.discard(lane);
            router.recovered(lane);
            return false;
        }
        state[lane] = State.REQUESTED;
        cause[lane] = status;
        deadline[lane] = now + boundNanos;
        started.increment();
        Lifecycle.log().info("endpoint {}: lane {} failed a request with {}; re-establishing its queue pair", endpoint,
                lane, status);
        return true;
    }

    /** Rail 0: a lane message arrived from the peer. */
    synchronized void onMessage(int type, int value, Wire32.Lane message, long now) {
        int lane = Wire32.laneOf(value);
        int e = Wire32.epochOf(value);
        if (lane >= state.length || !active.getAsBoolean()) {
            stale.increment();
            return;
        }
        if (type == Wire32.LANE_READY_TYPE) {
            if (state[lane] != State.REQUESTED || e != next(lane)) {
                stale.increment();
                return;
            }
            lanes.peerPosted(lane, message);
            begin(lane, lanes.remote(lane, message), now);
            return;
        }
        if (e != next(lane)) {
            stale.increment();
            return;
        }
        switch (state[lane]) {
            case DRAINING -> pendingReset[lane] = message; // the next round, after this one
            case REQUESTED -> {
                if (!winsTies.getAsBoolean()) { // both started this round: the peer's stands, answered with our fresh pair
                    lanes.peerPosted(lane, message);
                    answer(lane, lanes.remote(lane, message), now);
                }
            }
            case IDLE -> answerWithFreshPair(lane, message, now);
        }
    }

    /** The peer asked for a round on an idle lane: make this side's fresh queue pair and answer. */
    private void answerWithFreshPair(int lane, Wire32.Lane message, long now) {
        router.markRecovering(lane);
        try {
            mine[lane] = lanes.prepare(lane);
        } catch (RuntimeException ex) {
            router.recovered(lane);
            giveUp(lane, "could not make a fresh queue pair: " + ex);
            return;
        }
        deadline[lane] = now + boundNanos;
        lanes.peerPosted(lane, message); // after prepare: the statement is about the window it retired
        answer(lane, lanes.remote(lane, message), now);
    }

    private void answer(int lane, QpInfo remote, long now) {
        try {
            lanes.connect(lane, remote);
            lanes.send(Wire32.LANE_READY_TYPE, lane, next(lane), mine[lane]);
        } catch (RuntimeException ex) {
            giveUp(lane, "could not connect its fresh queue pair: " + ex);
            return;
        }
        enterDraining(lane, now);
    }

    private void begin(int lane, QpInfo remote, long now) {
        try {
            lanes.connect(lane, remote);
        } catch (RuntimeException ex) {
            giveUp(lane, "could not connect its fresh queue pair: " + ex);
            return;
        }
        enterDraining(lane, now);
    }

    private void enterDraining(int lane, long now) {
        epoch[lane] = next(lane);
        state[lane] = State.DRAINING;
        draining++;
        tryAdopt(lane, now);
    }

    private int next(int lane) {
        return (epoch[lane] + 1) & Wire32.EPOCH_MASK;
    }

    /** A completion of lane {@code lane} retired requests: a draining lane may now move. */
    void onRetired(int lane) {
        if (draining == 0) {
            return;
        }
        synchronized (this) {
            tryAdopt(lane, System.nanoTime());
        }
    }

    private void tryAdopt(int lane, long now) {
        if (state[lane] != State.DRAINING || !lanes.adoptIfDrained(lane)) {
            return;
        }
        state[lane] = State.IDLE;
        draining--;
        mine[lane] = null;
        router.recovered(lane);
        completed.increment();
        changed.run();
        Lifecycle.log().info("endpoint {}: lane {} re-established (epoch {})", endpoint, lane, epoch[lane]);
        Wire32.Lane pending = pendingReset[lane];
        if (pending != null) {
            pendingReset[lane] = null;
            answerWithFreshPair(lane, pending, now);
        }
    }

    /** Rail 0's loop turn: gives up rounds that ran past the bound. */
    synchronized void tick(long now) {
        for (int lane = 0; lane < state.length; lane++) {
            if (state[lane] != State.IDLE && now - deadline[lane] >= 0) {
                timedOut(lane);
            }
        }
    }

    /** For diagnostics: each lane's state and epoch. */
    synchronized String describe() {
        StringBuilder b = new StringBuilder();
        for (int lane = 0; lane < state.length; lane++) {
            b.append(lane).append(':').append(state[lane]).append('/').append(epoch[lane])
                    .append(pendingReset[lane] != null ? "+reset" : "").append(' ');
        }
        return b.append("started ").append(started).append(" completed ").append(completed).append(" stale ")
                .append(stale).append(" abandoned ").append(abandoned).toString();
    }

    /** Whether lane {@code lane} is being re-established. */
    synchronized boolean isRecovering(int lane) {
        return state[lane] != State.IDLE;
    }

    /**
     * A round that did not end within the bound: the peer did not answer on the meta queue pair for
     * as long as the keepalive allows, so it is taken for dead and the endpoint fails (as the
     * keepalive would).
     */
    private void timedOut(int lane) {
        String why = "lane " + lane + " failed a request with " + cause[lane] + " and the peer did not answer its"
                + " re-establishment within " + boundNanos / 1_000_000 + " ms (the peer stopped answering)";
        if (state[lane] == State.DRAINING) {
            draining--;
        }
        state[lane] = State.IDLE;
        mine[lane] = null;
        pendingReset[lane] = null;
        lanes.discard(lane);
        router.markDead(lane);
        abandoned.increment();
        Lifecycle.log().warn("endpoint {}: {}", endpoint, why);
        if (active.getAsBoolean()) {
            fail.accept(WcStatus.RETRY_EXC_ERR, why);
        }
        changed.run();
    }

    private void giveUp(int lane, String why) {
        if (state[lane] == State.DRAINING) {
            draining--;
        }
        state[lane] = State.IDLE;
        mine[lane] = null;
        pendingReset[lane] = null;
        lanes.discard(lane);
        abandoned.increment();
        Lifecycle.log().warn("endpoint {}: lane {} given up: {}", endpoint, lane, why);
        if (router.markDead(lane) == 0 && active.getAsBoolean()) {
            WcStatus status = cause[lane] != null ? cause[lane] : WcStatus.RETRY_EXC_ERR;
            fail.accept(WcStatus.RETRY_EXC_ERR, "lane " + lane + " failed a request with " + status
                    + " and could not be re-established: " + why);
        }
        changed.run();
    }
}
