package io.slime4j.endpoint;

import io.slime4j.verbs.WcStatus;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

/**
 * Layer 2: the identity and result of one operation. Created per op, never pooled; the op's
 * {@link TransferFuture} is this very object (the only subclass), so it is owned by whoever holds
 * the future, by the slots leasing it and by a completion being dispatched (I4).
 *
 * <p>Completion has two steps. <em>Settling</em>: every part of the op (one per slot lease, plus a
 * guard held while the caller is still posting) has finished; the op then completes with SUCCESS or
 * with the first failure any part reported. <em>Completing</em>: the result is set exactly once (a
 * CAS), the op leaves the in-flight registry and its {@link OpSignal} fires. {@link #cancel} may
 * complete an op before it settles; it still settles later, when the wire is done with its memory.
 *
 * <p>An op is its own {@link OpSignal} (one per op by construction, I1) and its own future, and a
 * successful one shares one result marker, its byte count and immediate being its own fields: an
 * op costs this object and its weak entry in the {@link InFlightRegistry}.
 */
abstract sealed class OpState extends OpSignal permits TransferFuture {
    private static final VarHandle RESULT;
    private static final VarHandle VIEWS;
    private static final VarHandle ERROR;
    private static final VarHandle GATES;
    private static final VarHandle PARTS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            RESULT = l.findVarHandle(OpState.class, "result", Result.class);
            VIEWS = l.findVarHandle(OpState.class, "views", ViewNode.class);
            ERROR = l.findVarHandle(OpState.class, "error", Failure.class);
            GATES = l.findVarHandle(OpState.class, "gates", GateNode.class);
            PARTS = l.findVarHandle(OpState.class, "parts", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The result of a completed op. */
    record Result(TransferStatus status, WcStatus wcStatus, long bytes, int immediate, String message) {}

    private record Failure(WcStatus status, String message) {}

    /** A caller's view, in a lock-free stack of views. */
    private record ViewNode(CompletableFuture<TransferFuture> view, ViewNode next) {}

    /** An {@link OrderGate} holding until this op settles, in a lock-free stack; {@link #SETTLED} once settled. */
    private record GateNode(OrderGate gate, GateNode next) {}

    private static final GateNode SETTLED = new GateNode(null, null);
    /** The result of every successful op; its bytes and immediate are the op's own ({@link #resultBytes}). */
    private static final Result SUCCEEDED = new Result(TransferStatus.SUCCESS, WcStatus.SUCCESS, 0, 0, null);

    final long seq;
    final OpKind kind;
    final OpSignal signal;
    private final OpTracker tracker;
    /** Parts not yet finished (a field, not an AtomicInteger: one object less per op). */
    @SuppressWarnings("unused") private volatile int parts = 1;
    private volatile long bytes;
    private volatile int immediate;
    @SuppressWarnings("unused") private volatile Failure error;
    private volatile Result result;
    @SuppressWarnings("unused") private volatile ViewNode views;
    @SuppressWarnings("unused") private volatile GateNode gates;
    /** The deferred immediate of a multi-queue-pair write-with-imm, or null. */
    ImmFence fence;
    /**
     * The requests of a one-sided op (for re-issue on another lane when one fails) until it settles
     * (then the plan goes back to its pool), or null.
     */
    volatile IoPlan plan;
    /** The local regions the op uses, let go of when it settles, or null. */
    private volatile Regions.Use use;
    /** The {@link Ordering} chain this op is in until it settles, or null; its neighbours there (the chain's lock guards them). */
    volatile Ordering.Chain orderedIn;
    OpState orderPrev;
    OpState orderNext;
    /**
     * The rail through whose completion queue every completion of this op comes, or -1 when unknown
     * or several (set before the op is posted; a multi-rail endpoint's waiter helps that rail only).
     */
    int rail = -1;
    /** This op's entry in the in-flight registry (set when registered). */
    InFlightRegistry.Entry registryEntry;

    OpState(long seq, OpKind kind, long bytes, OpSignal signal, OpTracker tracker) {
        this.seq = seq;
        this.kind = kind;
        this.bytes = bytes;
        this.signal = signal != null ? signal : this;
        this.tracker = tracker;
    }

    /** The op's future: this object. */
    TransferFuture future() {
        return (TransferFuture) this;
    }

    Result result() {
        return result;
    }

    /** The byte count of the result: the op's own for a success, 0 otherwise or while pending. */
    long resultBytes() {
        Result r = result;
        return r == SUCCEEDED ? bytes : r == null ? 0 : r.bytes();
    }

    /** The immediate of the result: the op's own for a success, 0 otherwise or while pending. */
    int resultImmediate() {
        Result r = result;
        return r == SUCCEEDED ? immediate : r == null ? 0 : r.immediate();
    }

    /** Whether the op has completed (successfully, failed or cancelled). */
    public boolean isDone() {
        return result != null;
    }

    /**
     * Whether the wire is done with the op's memory: every request it posted has completed (for a
     * receive: the peer's data or its cancellation has arrived). A successful op is settled when it
     * completes; an op completed by {@link RdmaEndpoint#cancelAll()} may settle later, and its
     * buffers may still be read or written until then.
     */
    public boolean isSettled() {
        return parts == 0;
    }

    boolean hasFailed() {
        return error != null;
    }

    /** One more part (a slot lease) that must finish before the op settles. */
    void addPart() {
        PARTS.getAndAdd(this, 1);
    }

    /** A part finished; the last one settles the op. */
    void partDone() {
        int left = (int) PARTS.getAndAdd(this, -1) - 1;
        if (left == 0) {
            Regions.Use u = use;
            if (u != null) {
                use = null;
                u.run();
            }
            releaseGates();
            Failure f = error;
            if (result != null) {
                // completed already (cancelled, failed at once): nothing more to report
            } else if (f == null) {
                complete(SUCCEEDED);
            } else {
                complete(new Result(TransferStatus.FAILED, f.status(), 0, 0, f.message()));
            }
            IoPlan p = plan;
            if (p != null) { // settled and completed: no request is outstanding, none can be re-issued
                plan = null;
                p.recycle();
            }
        } else if (left < 0) {
            throw new IllegalStateException("op " + seq + " finished more parts than it had");
        }
    }

    /** The regions the op uses until it settles (set while the caller's guard is held, before any part can finish). */
    void use(Regions.Use u) {
        use = u;
    }

    Regions.Use use() {
        return use;
    }

    /**
     * Makes {@code gate} hold until this op settles (its requests are done on the wire); false, and
     * no hold taken, when it settled already.
     */
    boolean holdUntilSettled(OrderGate gate) {
        gate.hold();
        GateNode head;
        do {
            head = gates;
            if (head == SETTLED) {
                gate.release();
                return false;
            }
        } while (!GATES.compareAndSet(this, head, new GateNode(gate, head)));
        return true;
    }

    /** Settled: releases every gate holding on this op, telling each when the op did not succeed. */
    private void releaseGates() {
        Ordering.Chain in = orderedIn;
        if (in != null) {
            in.remove(this);
        }
        GateNode n = (GateNode) GATES.getAndSet(this, SETTLED);
        if (n == null) {
            return;
        }
        Failure f = error;
        Result r = result; // set before settling only by cancel or failNow
        String why = f != null ? kind + " op " + seq + " failed: " + f.message()
                : r != null ? kind + " op " + seq + " was " + r.status() + ": " + r.message() : null;
        for (; n != null; n = n.next()) {
            if (why == null) {
                n.gate().release();
            } else {
                n.gate().releaseFailed(why);
            }
        }
    }

    /** Records a failure of a part; the first one wins and is reported when the op settles. */
    void fail(WcStatus status, String message) {
        ERROR.compareAndSet(this, null, new Failure(status, message));
    }

    /** The byte count reported on success (receives learn it from their completion). */
    void bytes(long n) {
        bytes = n;
    }

    void immediate(int imm) {
        immediate = imm;
    }

    /**
     * A waiter that could not help a rail whose callers drive it ({@link RailDrain#retriesHelp})
     * waits on its signal this long before it tries again, doubling up to
     * {@link #HELP_RETRY_MAX_NANOS}: the caller that helps (or posts) leaves once its own op
     * completed, and nobody else may drive a busy-polling device for this one.
     */
    static final long HELP_RETRY_MIN_NANOS = 50_000;
    static final long HELP_RETRY_MAX_NANOS = 5_000_000;

    /** Waits until the op's signal fires, helping its dispatcher when it can ({@link RailDrain#help}). */
    void awaitSignal() throws InterruptedException {
        while (!awaitSignal(Long.MAX_VALUE / 2)) {
            // a wait of 146 years timed out: wait again
        }
    }

    /** Waits up to {@code nanos} for the op's signal, helping its dispatcher when it can; whether it fired. */
    boolean awaitSignal(long nanos) throws InterruptedException {
        if (nanos <= 0) {
            return signal.awaitFired(nanos); // a brief look; no deadline (Long.MIN_VALUE would wrap)
        }
        if (signal.isFired()) {
            return true; // complete already (a poster handled it): no clock read
        }
        RailDrain d = tracker.drainer(this);
        long deadline = System.nanoTime() + nanos;
        long retry = HELP_RETRY_MIN_NANOS;
        long remaining = nanos; // the first look needs no second clock read
        while (d != null && !signal.isFired()) {
            if (remaining <= 0) {
                return signal.isFired();
            }
            Boolean fired = d.help(signal, deadline);
            if (fired != null) {
                return fired;
            }
            if (!d.retriesHelp()) {
                break;
            }
            if (signal.awaitFired(Math.min(retry, Math.max(0, deadline - System.nanoTime())))) {
                return true;
            }
            retry = Math.min(retry * 2, HELP_RETRY_MAX_NANOS);
            remaining = deadline - System.nanoTime();
        }
        return signal.isFired() || signal.awaitFired(Math.max(0, deadline - System.nanoTime()));
    }

    /**
     * Completes the op as FAILED with {@code status} at once, unless it completed already (the
     * endpoint failed: no completion of its own may ever come); whether this call did it. Like a
     * cancelled op it still settles later, when the wire is done with its memory.
     */
    boolean failNow(WcStatus status, String why) {
        fail(status, why);
        return complete(new Result(TransferStatus.FAILED, status, 0, 0, why));
    }

    /**
     * Cancels this one op ({@link TransferFuture#cancel}); a recv cancelled here is reported to the
     * peer as {@link RdmaEndpoint#cancelAll()} reports it ({@link CancelNotices}). Whether this call did it.
     */
    boolean cancelOne(String why) {
        if (!cancel(why)) {
            return false;
        }
        if (kind == OpKind.RECV) {
            tracker.recvCancelled();
        }
        return true;
    }

    /** Completes the op as cancelled unless it completed already; whether this call did it. */
    boolean cancel(String why) {
        return complete(new Result(TransferStatus.CANCELLED, WcStatus.WR_FLUSH_ERR, 0, 0, why));
    }

    private boolean complete(Result r) {
        if (!RESULT.compareAndSet(this, null, r)) {
            return false;
        }
        tracker.completed(this);
        signal.fire();
        for (ViewNode n = views; n != null; n = n.next()) {
            tracker.completeView(n.view(), future());
        }
        return true;
    }

    /**
     * A new view of this op, completed off the dispatch thread. Registered before the result is
     * read (and the completer sets the result before reading the views), so a view is always
     * completed by one side or both — completing twice is harmless.
     */
    CompletableFuture<TransferFuture> newView() {
        CompletableFuture<TransferFuture> view = new CompletableFuture<>();
        ViewNode head;
        do {
            head = views;
        } while (!VIEWS.compareAndSet(this, head, new ViewNode(view, head)));
        if (result != null) {
            OpTracker.completeViewNow(view, future()); // completed already: here, on the caller's thread
        }
        return view;
    }

    /** The op's kind, number and state, for logs and messages. */
    @Override
    public String toString() {
        Result r = result;
        return kind + " op " + seq + (r == null ? " pending" : " " + r.status());
    }
}
