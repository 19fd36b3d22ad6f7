package io.slime4j.endpoint;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The imm-recv path: a pure matching path that leases no slot. The peer's RDMA_WRITE_WITH_IMM
 * requests consume receives of the imm windows (pre-posted on every io queue pair at connect);
 * the dispatch thread re-posts each one at once (I5), then hands the datum to the oldest waiting
 * {@code immRecv()} or queues it for the next caller — arrivals and callers are both matched in
 * order.
 *
 * <p><b>Credits.</b> Re-posting happens on this endpoint's dispatch thread, which the peer cannot
 * see; without a bound, a fast peer could consume receives faster than they are re-posted and hit
 * RNR. So a peer may have at most {@link EndpointConfig#immWindow()} (this endpoint's) write-with-imm
 * requests not yet re-posted for: it starts with that many credits, spends one per write-with-imm,
 * and gets them back in CREDIT messages on the meta queue pair, sent by this path once a quarter of
 * the window has been re-posted. Both directions use the same scheme. A peer spends credits only
 * after its dispatcher processed the CREDIT message carrying them (re-posting that meta receive
 * first), so at most {@code immWindow / max(1, immWindow / 4)} (≤ 7) credit messages can wait
 * unprocessed in the peer's meta window, which has {@link EndpointConfig#CREDIT_RESERVE} receives
 * for them beyond its message slots.
 */
final class ImmRecvPath {
    private final Lifecycle lifecycle;
    private final String name;
    private final Router router;
    private final Transport transport;
    private final OpTracker tracker;
    private final EndpointHooks hooks;
    private final BackPressure backPressure;
    private final Anomalies anomalies;
    private final Stats stats;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<OpState> waiting = new ArrayDeque<>();
    private final ArrayDeque<Integer> arrivals = new ArrayDeque<>();
    private final Semaphore peerCredits = new Semaphore(0);
    private final ImmRefunds refunds;
    private final int returnThreshold;
    private final WorkRequest creditWr = new WorkRequest();
    private final Object creditLock = new Object();
    private int toReturn;
    private int creditSendsOutstanding;
    private boolean woken;
    /** Set when the endpoint failed: no immRecv waits any more (guarded by {@link #lock}). */
    private String failed;
    private io.slime4j.verbs.WcStatus failedStatus;

    ImmRecvPath(Lifecycle lifecycle, int immWindow, Router router, Transport transport, OpTracker tracker,
                EndpointHooks hooks, BackPressure backPressure, Anomalies anomalies, Stats stats) {
        this.lifecycle = lifecycle;
        this.name = lifecycle.name();
        this.router = router;
        this.transport = transport;
        this.tracker = tracker;
        this.hooks = hooks;
        this.backPressure = backPressure;
        this.anomalies = anomalies;
        this.stats = stats;
        this.returnThreshold = Math.max(1, immWindow / 4);
        int[] qpns = new int[transport.immWindows.length];
        for (int q = 0; q < qpns.length; q++) {
            qpns[q] = transport.immWindows[q].qpn();
        }
        this.refunds = new ImmRefunds(qpns, this::refund);
    }

    /** The peer's immediates of a re-established lane's old queue pair that never consumed a receive. */
    ImmRefunds refunds() {
        return refunds;
    }

    /** Returns {@code n} credits to the peer for immediates that consumed no receive ({@link ImmRefunds}). */
    private void refund(int n) {
        synchronized (creditLock) { // as re-posted receives: a CREDIT message per quarter window keeps the bound below
            toReturn += n;
            maybeReturnCredits();
        }
    }

    /** At connect: the peer's window is what this endpoint may spend. */
    void connected(EndpointInfo peer) {
        peerCredits.release(peer.immWindow());
    }

    TransferFuture immRecv() {
        lifecycle.checkUsable();
        OpState op = tracker.newOp(OpKind.IMM_RECV, 0);
        Integer value;
        String failure;
        lock.lock();
        try {
            failure = failed;
            value = failure == null ? arrivals.poll() : null;
            if (value == null && failure == null) {
                waiting.add(op);
            }
        } finally {
            lock.unlock();
        }
        if (failure != null) { // the endpoint failed after the check above: no arrival will come
            op.failNow(failedStatus, failure);
            op.partDone();
        } else if (value != null) {
            deliver(op, value);
        }
        return op.future();
    }

    private static void deliver(OpState op, int value) {
        op.immediate(value);
        op.partDone();
    }

    /** Dispatch thread: a write-with-imm of the peer consumed an imm window receive. */
    void onImmWindow(WorkCompletion wc) {
        int q = WrIds.qp(wc.wrId());
        RecvWindow w = transport.immWindows[q];
        if (w.qpn() != wc.qpn()) {
            w = transport.immWindow(q); // the lane was re-established: look again under its lock
        }
        if (w.qpn() != wc.qpn()) {
            // a receive of the lane's replaced queue pair: nothing is re-posted, its window only counts down
            RecvWindow retired = transport.retiredImmWindow(q);
            if (retired != null && retired.qpn() == wc.qpn()) {
                retired.consumed();
            }
            w = null;
        }
        int entry = WrIds.slot(wc.wrId());
        if (w != null) {
            w.consumed();
        }
        refunds.completed(q, wc.qpn(), wc.isSuccess());
        if (!wc.isSuccess()) {
            return; // flushed: the queue pair is closing or was replaced
        }
        boolean repostFirst = hooks.repostBeforeRelease() && w != null;
        if (repostFirst) {
            w.post(entry);
        }
        int value = wc.immediate();
        OpState op;
        List<OpState> skipped = null;
        lock.lock();
        try {
            // a caller cancelled while waiting (cancelAll raced with immRecv) does not take an arrival
            while ((op = waiting.poll()) != null && op.isDone()) {
                (skipped == null ? skipped = new ArrayList<>() : skipped).add(op);
            }
            if (op == null) {
                arrivals.add(value);
            }
        } finally {
            lock.unlock();
        }
        if (skipped != null) {
            skipped.forEach(OpState::partDone); // they settle: they have no requests
        }
        if (op != null) {
            deliver(op, value);
        }
        if (!repostFirst && w != null) {
            w.post(entry);
        }
        synchronized (creditLock) { // with several rails, several dispatch threads get here
            toReturn++;
            maybeReturnCredits();
        }
    }

    /**
     * Sends a CREDIT message once a quarter of the window was re-posted, with at most
     * {@link EndpointConfig#CREDIT_RESERVE} of them unacknowledged (the meta send queue keeps room
     * for that many); otherwise the credits wait for the next credit-send completion.
     */
    private void maybeReturnCredits() {
        if (toReturn >= returnThreshold && creditSendsOutstanding < EndpointConfig.CREDIT_RESERVE) {
            sendCredits(toReturn);
            toReturn = 0;
        }
    }

    /** Dispatch thread: a credit message completed. */
    void onCreditSent(WorkCompletion wc) {
        synchronized (creditLock) {
            creditSendsOutstanding--;
            if (wc.isSuccess()) {
                maybeReturnCredits();
            }
        }
    }

    private void sendCredits(int n) {
        router.select(QpOpType.CONTROL, 0); // the meta queue pair: lane 0
        // more: no thread waits for it, so it may leave with what is posted next (EagerPath.returnCredits)
        creditWr.clear().wrId(WrIds.encode(WrIds.CREDIT_SEND, 0, 0, 0, 0)).opcode(Opcode.SEND_WITH_IMM)
                .immediate(Wire32.metaImm(Wire32.CREDIT_TYPE, n)).more(true);
        try {
            transport.meta.postSend(creditWr);
            creditSendsOutstanding++;
            stats.creditMessages.increment();
        } catch (RuntimeException e) {
            if (!lifecycle.isClosing()) {
                anomalies.protocolError("could not return " + n + " imm credits: " + e.getMessage());
            }
        }
    }

    /** Dispatch thread: the peer returned credits. */
    void creditsReturned(int n) {
        peerCredits.release(n);
    }

    /** Takes one credit for a write-with-imm, waiting (bounded) for the peer to return some. */
    void acquirePeerCredit() {
        try {
            if (!peerCredits.tryAcquire() // no wait, nothing allocated
                    && !backPressure.permit(-1, () -> peerCredits.availablePermits() > 0, peerCredits::tryAcquire,
                            n -> peerCredits.tryAcquire(n, TimeUnit.NANOSECONDS))) {
                throw backPressure.busy("no write-with-imm credit (the peer's window is full of unprocessed immediates)");
            }
            lifecycle.checkUsable(); // close() and a failure wake waiters with spare permits
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EndpointException("endpoint " + name + ": interrupted waiting for a write-with-imm credit", e);
        }
    }

    /** A credit taken but not spent (the immediate was never posted). */
    void returnPeerCredit() {
        peerCredits.release();
    }

    /**
     * Closing or failed: wakes every caller waiting for a credit (it then finds the endpoint closed
     * or failed). Once only: the spare credits must not overflow.
     */
    void wakeWaiters() {
        synchronized (creditLock) {
            if (woken) {
                return;
            }
            woken = true;
        }
        peerCredits.release(Integer.MAX_VALUE / 4);
    }

    int peerCredits() {
        return peerCredits.availablePermits();
    }

    /** Immediates that arrived and wait for an {@code immRecv()}. */
    int queued() {
        lock.lock();
        try {
            return arrivals.size();
        } finally {
            lock.unlock();
        }
    }

    /** cancelAll: drains both matching queues; waiting ops are cancelled (and settle, having no requests); how many. */
    /**
     * The endpoint failed: every waiting immRecv fails now with {@code status} (and settles: it has
     * no requests), and one that races with this fails at its call; queued immediates are dropped.
     */
    void failAll(io.slime4j.verbs.WcStatus status, String why) {
        List<OpState> drained;
        lock.lock();
        try {
            failed = why;
            failedStatus = status;
            drained = new ArrayList<>(waiting);
            waiting.clear();
            arrivals.clear();
        } finally {
            lock.unlock();
        }
        for (OpState op : drained) {
            op.failNow(status, why);
            op.partDone();
        }
    }

    int cancelAll(String why) {
        List<OpState> drained;
        lock.lock();
        try {
            drained = new ArrayList<>(waiting);
            waiting.clear();
            arrivals.clear();
        } finally {
            lock.unlock();
        }
        int n = 0;
        for (OpState op : drained) {
            if (op.cancel(why)) {
                n++;
            }
            op.partDone();
        }
        return n;
    }
}
