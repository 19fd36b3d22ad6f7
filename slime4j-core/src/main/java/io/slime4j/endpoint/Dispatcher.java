package io.slime4j.endpoint;

import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.CompletionQueueOverflowException;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The dispatcher of one rail (rail 0's also handles the message path): polls the rail's completion
 * queue, decodes each completion's wrId ({@link WrIds}) and hands it to its path. Polling and
 * handling happen together under one lock, so completions are handled one batch at a time, in
 * queue order, whoever does it.
 *
 * <p>Usually its own thread does it: it waits in {@link CompletionQueue#awaitReadyPassively} with a
 * bounded timeout (no busy spin, and it never spins on a busy-polling device; on shm a poll of an
 * empty queue runs one duty cycle, whoever polls). A caller blocked in {@link TransferFuture#await()} (or {@code join},
 * {@code get}) may instead take the queue over ({@link #help}): on a single-rail endpoint for any
 * op, on a multi-rail one for an op whose requests all went to this rail ({@link OpState#rail}). It
 * spins briefly ({@value #HELP_SPINS} looks), then waits on the completion queue itself and handles
 * what arrives until its own op's signal fires, so its completion reaches it without the hand-off
 * through the dispatch thread.
 * One caller helps at a time (others wait on their signals as before); while one does, the dispatch
 * thread waits on the queue passively ({@link CompletionQueue#awaitReadyPassively}: a completion
 * wakes the helper, not it), and the helper wakes it when it leaves completions behind.
 *
 * <p>Rail 0's dispatcher also drives the {@link Keepalive}: every batch it handles is traffic, and
 * each turn of its loop (at least every poll timeout) gives the keepalive a chance to probe.
 *
 * <p>Only endpoint code runs here: it fires op signals and hands
 * {@link java.util.concurrent.CompletableFuture} completions to the completion executor, so no
 * user code ever runs while a completion is handled. An exception in one completion is counted
 * and logged; the loop goes on.
 */
final class Dispatcher implements Runnable, RailDrain {
    private static final int BATCH = 256;
    /** A helper's first bounded wait on the queue; it doubles up to {@link #HELP_SLICE_MAX_NANOS}. */
    static final long HELP_SLICE_MIN_NANOS = 1_000_000;
    /**
     * A helper re-checks its signal at least this often: an op completed other than by a
     * completion of this queue (cancelled, failed while posting) wakes its helper within this.
     */
    static final long HELP_SLICE_MAX_NANOS = 20_000_000;
    /**
     * Looks a helper takes at the queue (and its signal) before it blocks on the queue: about a
     * microsecond. 100 measured worse on 2 cores (the spinner holds the core the agent needs;
     * docs/PERFORMANCE.md, issue 19 item 2).
     */
    static final int HELP_SPINS = 10;

    /**
     * How long the dispatch thread stands aside when it finds completions there that a helping
     * caller is about to handle, before it looks again.
     */
    static final long STAND_ASIDE_NANOS = 1_000_000;

    private final String name;
    private final Lifecycle lifecycle;
    private final EndpointFailure failure;
    private final Router router;
    private final Anomalies anomalies;
    private final IoCompletions io;
    private final MessagePath messages;
    private final ImmRecvPath imm;
    private final CancelNotices cancels;
    /** Rail 0's keepalive (idle probes), or null on other rails. */
    private final Keepalive keepalive;
    private final LaneRecovery lanes;
    private final MessageCompletions messageCompletions;
    private final WorkCompletion[] batch = WorkCompletion.array(BATCH);
    private final Thread thread;
    private final long pollNanos;
    private final CompletionQueue cq;
    /** Whether a post may complete at once ({@link CompletionQueue#completesOnPost}): posters then handle it. */
    private final boolean completesOnPost;
    /** Whether the queue's device makes progress in its waiters' threads ({@link CompletionQueue#drivenByWaiters}). */
    private final boolean drivenByWaiters;
    /** Held while polling and handling a batch, by the dispatch thread or a helper. */
    private final ReentrantLock drain = new ReentrantLock();
    /**
     * The caller currently handling the queue in the dispatch thread's stead (waiting on it, or
     * posting a request that may complete at once), or null.
     */
    private final AtomicReference<Thread> helper = new AtomicReference<>();
    /**
     * The dispatch thread parks while a helper handles the queue: a leaving helper unparks it, since
     * a completion pushed after the helper's last look wakes no one else (the thread is not among
     * the queue's passive waiters then).
     */
    private volatile boolean standingAside;
    private final LongAdder helped = new LongAdder();
    /** Batches the dispatch thread itself handled (each a hop from the thread that made them). */
    private final LongAdder ownBatches = new LongAdder();
    private volatile boolean running = true;
    /** The shared group whose thread serves this rail instead of an own one, or null. */
    private final DispatchGroup group;
    private final int rail;

    Dispatcher(CompletionQueue cq, int rail, long pollNanos, Lifecycle lifecycle, EndpointFailure failure, Router router,
               Anomalies anomalies, IoCompletions io, MessagePath messages, ImmRecvPath imm,
               MessageCompletions messageCompletions, CancelNotices cancels, Keepalive keepalive,
               LaneRecovery lanes, DispatchGroup group) {
        this.lanes = lanes;
        this.cq = cq;
        this.completesOnPost = cq.completesOnPost();
        this.drivenByWaiters = cq.drivenByWaiters();
        this.name = lifecycle.name();
        this.lifecycle = lifecycle;
        this.failure = failure;
        this.router = router;
        this.anomalies = anomalies;
        this.io = io;
        this.messages = messages;
        this.imm = imm;
        this.cancels = cancels;
        this.messageCompletions = messageCompletions;
        this.keepalive = keepalive;
        this.pollNanos = pollNanos;
        this.group = group;
        this.rail = rail;
        this.thread = group != null ? group.thread(rail) : Thread.ofPlatform().daemon().name("slime4j-" + name
                + "-dispatch" + (rail == 0 ? "" : "-rail" + rail)).unstarted(this);
    }

    void start() {
        if (group != null) {
            group.add(rail, this);
        } else {
            thread.start();
        }
    }

    /** For a {@link DispatchGroup}'s sweep: one batch handled, 0 when stopped or busy with a helper. */
    int drainShared() {
        if (!running || helper.get() != null) {
            return 0;
        }
        int n = Math.max(0, drainOnce());
        if (keepalive != null) {
            long now = System.nanoTime();
            keepalive.tick(now); // the group's sweep is this rail's loop turn
            lanes.tick(now);
        }
        return n;
    }

    /** For a {@link DispatchGroup}: whether this dispatcher is still served. */
    boolean isMember() {
        return running;
    }

    /** For a {@link DispatchGroup}'s idle wait on this rail's queue. */
    void awaitReady(long nanos) throws InterruptedException {
        cq.awaitReadyPassively(nanos, TimeUnit.NANOSECONDS);
    }

    /** Whether the current thread is handling completions of this rail (the dispatch thread or a helper). */
    @Override
    public boolean isDispatching() {
        return drain.isHeldByCurrentThread();
    }

    Thread thread() {
        return thread;
    }

    /** How many waits a caller spent helping (taking the queue over). */
    long helpedWaits() {
        return helped.sum();
    }

    /**
     * How many batches of completions the dispatch thread handled itself (not a helping or posting
     * caller); a {@link DispatchGroup}'s shared thread's batches are not counted.
     */
    long ownBatches() {
        return ownBatches.sum();
    }

    /** The dispatch loop. */
    @Override
    public void run() {
        while (running) {
            // a caller helping handles the queue: woken with it by a completion, stand aside instead of
            // competing for the batch (the helper wakes this thread if it leaves completions behind)
            int n = helper.get() != null ? 0 : drainOnce();
            if (n < 0) {
                return; // the queue overflowed: the endpoint has failed
            }
            if (keepalive != null) {
                long now = System.nanoTime();
                keepalive.tick(now);
                lanes.tick(now);
            }
            if (n > 0) {
                ownBatches.increment();
                continue;
            }
            try {
                standingAside = true; // then read helper: a Dekker pair with a leaving helper's unpark
                if (helper.get() != null && cq.awaitReadyPassively(0, TimeUnit.NANOSECONDS)) {
                    // a caller is about to handle what is there; it wakes us when it leaves, and we
                    // look again within STAND_ASIDE_NANOS anyway
                    LockSupport.parkNanos(this, Math.min(pollNanos, STAND_ASIDE_NANOS));
                    standingAside = false;
                } else {
                    standingAside = false;
                    // a passive wait: while a caller waits on the queue (or drives a busy-polling device for
                    // it), completions wake that caller, not this thread; ones pushed after it left wake us
                    cq.awaitReadyPassively(pollNanos, TimeUnit.NANOSECONDS);
                }
            } catch (InterruptedException e) {
                // stop() interrupts; the loop condition decides
            } catch (RuntimeException e) {
                anomalies.dispatchError("waiting on the completion queue failed", e);
            }
        }
    }

    /**
     * Polls one batch and handles it, under the drain lock; how many completions, or -1 if the
     * queue overflowed (the endpoint is then failed and every op cancelled).
     */
    private int drainOnce() {
        drain.lock();
        try {
            if (!running) {
                return 0;
            }
            int n;
            try {
                n = cq.poll(batch);
            } catch (CompletionQueueOverflowException e) {
                running = false;
                failure.fail(WcStatus.GENERAL_ERR, "completion queue overflowed: " + e.getMessage());
                return -1;
            } catch (RuntimeException e) {
                anomalies.dispatchError("polling the completion queue failed", e);
                return 0;
            }
            if (n > 0 && keepalive != null) {
                keepalive.traffic(System.nanoTime());
            }
            for (int i = 0; i < n; i++) {
                dispatch(batch[i]);
            }
            return n;
        } finally {
            drain.unlock();
        }
    }

    /**
     * A caller waits for {@code signal} by handling this queue's completions itself, until
     * {@code deadline} (a {@link System#nanoTime} reading); returns whether the signal fired, or
     * null if it cannot help (another caller helps, the dispatcher stopped, or this thread is
     * already handling completions) and must wait on the signal as usual.
     */
    @Override
    public Boolean help(Awaited signal, long deadline) throws InterruptedException {
        Thread me = Thread.currentThread();
        if (!running || me == thread || drain.isHeldByCurrentThread() || !helper.compareAndSet(null, me)) {
            return null;
        }
        boolean polling = false;
        try {
            helped.increment();
            if (completesOnPost) {
                // where callers consume the queue (a busy-polling device, shm), an active poller while it
                // helps, not only while it waits on it: what a cycle pushes meanwhile (its own posts', the
                // agent's) is left to this caller and wakes no dispatch thread (issue 19: 75 k wake-ups
                // a second of a busy-polling receiver's, docs/PERFORMANCE.md); on a default soft device
                // the dispatch thread may take such completions on the other core while this one works
                cq.beginPolling();
                polling = true;
            }
            long slice = HELP_SLICE_MIN_NANOS;
            while (!signal.isFired()) {
                if (!running) {
                    return null; // stopping: wait on the signal
                }
                if (drainOnce() != 0) {
                    if (!signal.isFired() && System.nanoTime() - deadline >= 0) {
                        return false; // the bound holds while others' completions keep coming
                    }
                    continue; // a wait that its first batch ends reads no clock
                }
                if (signal.isFired()) {
                    break;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (spin(signal)) {
                    continue; // something arrived, or the op completed elsewhere
                }
                long wait = Math.min(remaining, slice);
                long began = System.nanoTime();
                if (!cq.awaitReady(wait, TimeUnit.NANOSECONDS)) {
                    if (System.nanoTime() - began < wait / 2) {
                        return null; // returned early with nothing ready: the queue is closed; wait on the signal
                    }
                    slice = Math.min(slice * 2, HELP_SLICE_MAX_NANOS);
                }
            }
            if (polling) {
                polling = false;
                cq.endPolling(); // then look: a Dekker pair with a push, which wakes the dispatch thread once we stopped
                if (running && readyNow()) {
                    // what arrived with its own is handled here rather than handed to a thread that a spinner
                    // gives its core to (on a default soft device the dispatch thread takes it on the other
                    // core while this caller goes on: with the caller taking it, the write-with-imm 32 B rate
                    // was 56 and 65 k msg/s in two rounds against 69 and 70 without)
                    drainOnce();
                }
            }
            return true;
        } finally {
            if (polling) {
                cq.endPolling(); // leaving early (a timeout, an interrupt, stopping, an Error): no more batches here
            }
            helper.set(null);
            // a passive look: one that drives the device (awaitReady on shm) would make completions only to
            // wake the dispatch thread for them
            handOver(readyNow());
        }
    }

    @Override
    public boolean beginPosting() {
        if (!completesOnPost || !running) {
            return false;
        }
        Thread me = Thread.currentThread();
        if (me == thread || drain.isHeldByCurrentThread() || !helper.compareAndSet(null, me)) {
            return false;
        }
        try {
            cq.beginPolling();
        } catch (RuntimeException | Error e) {
            helper.set(null); // never left taken by a poster that will not call endPosting
            throw e;
        }
        return true;
    }

    /** Where posts complete on the posting thread ({@link CompletionQueue#completesOnPost}: busy-polling, shm). */
    @Override
    public boolean callersPostMore() {
        return completesOnPost;
    }

    /**
     * Whether a caller for whom {@link #help} returned null should try again soon rather than wait
     * on its op's signal alone: on a queue whose device its waiters drive ({@link
     * CompletionQueue#drivenByWaiters}: busy-polling, its agent may rest up to 10 ms meanwhile),
     * unless this thread handles the queue already.
     */
    @Override
    public boolean retriesHelp() {
        return running && drivenByWaiters && Thread.currentThread() != thread && !drain.isHeldByCurrentThread();
    }

    /**
     * Handles what the post completed (and whatever else is there) on the posting thread: the op's
     * future may be complete when the call that posted it returns, with no dispatch thread woken.
     */
    @Override
    public void endPosting() {
        try {
            cq.endPolling();
            if (readyNow()) {
                drainOnce();
            }
        } catch (RuntimeException e) {
            anomalies.dispatchError("handling completions on a posting thread failed", e);
        } catch (Error e) {
            // fail the endpoint (as an Error on the dispatch thread does; a second fail is a no-op),
            // which fails every op, this caller's too: thrown from the post it would leave that op
            // half submitted and its post taken for a failed one
            failure.fail(WcStatus.GENERAL_ERR, "handling completions on a posting thread failed: " + e);
        } finally {
            helper.set(null);
            handOver(readyNow());
        }
    }

    /**
     * After a helper or poster gave the helper's place up ({@code helper} cleared, then the queue
     * looked at): the dispatch thread takes what was left behind, or stops standing aside for it.
     */
    private void handOver(boolean completionsLeft) {
        if (completionsLeft || standingAside) {
            LockSupport.unpark(thread);
        }
    }

    /** Whether a completion is there, without running the device's progress (a passive look). */
    private boolean readyNow() {
        try {
            return cq.awaitReadyPassively(0, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // keep the caller's interrupt; say yes, so that someone looks
            return true;
        }
    }

    /** A brief spin before blocking: whether a completion arrived or the signal fired meanwhile. */
    private boolean spin(Awaited signal) throws InterruptedException {
        for (int i = 0; i < HELP_SPINS; i++) {
            if (signal.isFired() || cq.awaitReady(0, TimeUnit.NANOSECONDS)) {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    private void dispatch(WorkCompletion wc) {
        if (!wc.isSuccess() && wc.status() != WcStatus.WR_FLUSH_ERR && !lifecycle.isClosing()
                && WrIds.kind(wc.wrId()) != WrIds.KEEPALIVE && !laneRecovers(wc) && !laneFailed(wc)) {
            // a failed request moves its queue pair to ERR (the verbs contract): a message queue pair
            // (or the last live lane) failing ends the endpoint
            failure.fail(wc.status(), "queue pair " + wc.qpn() + " failed a request with " + wc.status()
                    + (wc.status() == WcStatus.RETRY_EXC_ERR ? " (the peer stopped answering)" : ""));
        }
        try {
            switch (WrIds.kind(wc.wrId())) {
                case WrIds.IO -> io.onCompletion(wc);
                case WrIds.MSG_DATA -> messageCompletions.onDataSent(wc);
                case WrIds.META_SEND -> messageCompletions.onMetaSent(wc);
                case WrIds.CREDIT_SEND -> imm.onCreditSent(wc);
                case WrIds.CANCEL_SEND -> cancels.onSent(wc);
                case WrIds.EAGER_CREDIT_SEND -> messages.eager().onCreditSent(wc);
                case WrIds.NOTICE_SEND -> messages.eager().onNoticeSent(wc);
                case WrIds.KEEPALIVE -> keepalive.onCompletion(wc.status(), wc.qpn());
                case WrIds.LANE_SEND -> { } // a lane message went out; a failure failed the endpoint above
                case WrIds.META_WINDOW -> messages.onMetaWindow(wc);
                case WrIds.DATA_WINDOW -> messageCompletions.onDataWindow(wc);
                case WrIds.IMM_WINDOW -> imm.onImmWindow(wc);
                default -> anomalies.protocolError("completion with a foreign wrId: " + wc);
            }
        } catch (RuntimeException e) {
            anomalies.dispatchError("dispatching " + wc + " failed", e);
        } catch (Error e) {
            anomalies.dispatchError("dispatching " + wc + " failed", e);
            failure.fail(WcStatus.GENERAL_ERR, "dispatch thread died: " + e);
            throw e;
        }
    }

    /**
     * A remote access error of an io request re-establishes its lane ({@link LaneRecovery}) rather
     * than taking it out for good; true when the recovery handles it.
     */
    private boolean laneRecovers(WorkCompletion wc) {
        return WrIds.kind(wc.wrId()) == WrIds.IO
                && lanes.onFault(WrIds.qp(wc.wrId()), wc.qpn(), wc.status(), System.nanoTime());
    }

    /**
     * A failed request of an io lane takes only that lane out of the rotation (its other requests
     * flush and are re-issued or failed by {@link IoPath}); false when it was the last live lane or
     * the completion is not of a lane.
     */
    private boolean laneFailed(WorkCompletion wc) {
        int kind = WrIds.kind(wc.wrId());
        if (kind != WrIds.IO && kind != WrIds.IMM_WINDOW) {
            return false;
        }
        int lane = WrIds.qp(wc.wrId());
        Lifecycle.log().warn("endpoint {}: lane {} failed a request with {}", name, lane, wc.status());
        return router.markDead(lane) > 0;
    }

    /**
     * Stops the loop and waits (bounded) for the thread to end and for a helper to finish the batch
     * it is handling; no completion is handled after this returns.
     */
    void stop(long millis) throws InterruptedException {
        running = false;
        if (group != null) {
            group.remove(rail, this);
        } else {
            thread.interrupt();
            thread.join(millis);
        }
        if (drain.tryLock(millis, TimeUnit.MILLISECONDS)) {
            drain.unlock();
        }
    }
}
