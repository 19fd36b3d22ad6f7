package io.slime4j.endpoint;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Creates ops (each with a fresh signal and a sequence number), keeps the weak in-flight registry,
 * and completes {@link TransferFuture#toCompletableFuture()} views on the completion executor.
 */
final class OpTracker {
    private final AtomicLong sequence = new AtomicLong();
    private final InFlightRegistry registry = new InFlightRegistry();
    private final LongAdder completed = new LongAdder();
    private final EndpointHooks hooks;
    private final Executor executor;

    OpTracker(String endpoint, EndpointHooks hooks, Executor configured) {
        this.hooks = hooks;
        if (configured != null) {
            this.executor = configured;
        } else {
            ThreadFactory virtual = Thread.ofVirtual().name("slime4j-" + endpoint + "-completion-", 0).factory();
            this.executor = task -> virtual.newThread(task).start();
        }
    }

    /** A new op, registered in flight. */
    OpState newOp(OpKind kind, long bytes) {
        OpState op = new TransferFuture(sequence.incrementAndGet(), kind, bytes, hooks.newSignal(), this);
        registry.add(op);
        return op;
    }

    /**
     * The rails' dispatchers, which a waiting caller may help ({@link RailDrain#help}), or null
     * before they exist. On one rail every op completes through that rail's queue; on several, only
     * an op whose requests all went to one rail ({@link OpState#rail}) is helped, on that rail.
     */
    private volatile RailDrain[] drainers;

    void drainers(RailDrain[] ds) {
        drainers = ds.clone();
    }

    /** The dispatcher {@code op}'s waiter may help, or null (it waits on the op's signal alone). */
    RailDrain drainer(OpState op) {
        return drainer(op.rail);
    }

    /**
     * Whether the endpoint has one rail: then every op's waiter helps that rail's dispatcher, and a
     * caller's posts may be held for its next wait ({@code WorkRequest.more}: on several rails the
     * next wait may drive another rail's device).
     */
    boolean singleRail() {
        RailDrain[] ds = drainers;
        return ds != null && ds.length == 1;
    }

    /**
     * The dispatcher of {@code rail} (-1: unknown or several), or null: on a single-rail endpoint
     * its one rail's; on a multi-rail endpoint the named rail's, none for -1.
     */
    RailDrain drainer(int rail) {
        RailDrain[] ds = drainers;
        if (ds == null || ds.length == 0) {
            return null;
        }
        if (ds.length == 1) {
            return ds[0];
        }
        return rail >= 0 && rail < ds.length ? ds[rail] : null;
    }

    /** Called once per op, by whichever thread completed it. */
    void completed(OpState op) {
        registry.remove(op);
        completed.increment();
    }

    /**
     * Whether the calling thread runs the user's completion stages ({@link #completeView}): what it
     * posts there is not followed by a wait of its own ({@link #postsMore}).
     */
    private static final ThreadLocal<Boolean> IN_STAGES = ThreadLocal.withInitial(() -> Boolean.FALSE);

    /**
     * Whether a request the calling thread posts now, inside a caller's own call, may be held by a
     * busy-polling device for what the caller posts or waits for next ({@code WorkRequest.more}):
     * on a single-rail endpoint ({@link #singleRail}: on several the next wait may drive another
     * rail's device) whose device holds it only that long ({@link RailDrain#callersPostMore}), not
     * while handling completions ({@code rail} dispatching), not in completion stages the endpoint
     * runs.
     */
    boolean postsMore(RailDrain rail) {
        return rail != null && singleRail() && rail.callersPostMore() && !rail.isDispatching() && !IN_STAGES.get();
    }

    /** Hands the completion of a view to the executor, never running user stages on this thread. */
    void completeView(CompletableFuture<TransferFuture> view, TransferFuture future) {
        try {
            executor.execute(() -> completeViewInStages(view, future));
        } catch (RejectedExecutionException e) {
            Thread.ofVirtual().start(() -> completeViewInStages(view, future));
        }
    }

    private static void completeViewInStages(CompletableFuture<TransferFuture> view, TransferFuture future) {
        IN_STAGES.set(Boolean.TRUE);
        try {
            completeViewNow(view, future);
        } finally {
            IN_STAGES.set(Boolean.FALSE);
        }
    }

    static void completeViewNow(CompletableFuture<TransferFuture> view, TransferFuture future) {
        switch (future.status()) {
            case SUCCESS -> view.complete(future);
            case CANCELLED -> view.completeExceptionally(
                    new CancellationException(future.kind() + " op " + future.id() + ": " + future.failureMessage()));
            case FAILED -> view.completeExceptionally(new TransferFailedException(future));
            case PENDING -> throw new IllegalStateException("view of a pending op completed");
        }
    }

    /** Tells the peer about cancelled recvs ({@link CancelNotices}); set once the endpoint is wired. */
    private volatile Runnable recvCancelled = () -> { };

    void onRecvCancelled(Runnable r) {
        recvCancelled = r;
    }

    /** One recv was cancelled on its own ({@link OpState#cancelOne}): the peer is told. */
    void recvCancelled() {
        recvCancelled.run();
    }

    /** Cancels every live op; how many this call completed. */
    int cancelAll(String why) {
        int n = 0;
        for (OpState op : registry.liveOps()) {
            if (op.cancel(why)) {
                n++;
            }
        }
        return n;
    }

    /** Fails every live op at once (the endpoint failed); how many this call completed. */
    int failAll(io.slime4j.verbs.WcStatus status, String why) {
        int n = 0;
        for (OpState op : registry.liveOps()) {
            if (op.failNow(status, why)) {
                n++;
            }
        }
        return n;
    }

    /** The live ops of the registry (for deregister: the ones still using a region). */
    java.util.List<OpState> liveOps() {
        return registry.liveOps();
    }

    /** Live ops in the registry. */
    int inFlight() {
        return registry.size();
    }

    long completedOps() {
        return completed.sum();
    }
}
