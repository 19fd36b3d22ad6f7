package io.slime4j.endpoint;

import io.slime4j.verbs.WcStatus;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Layer 2: the identity and result of one operation. Created per op, never pooled; owned by its
 * {@link TransferFuture}, by the slots leasing it and by a completion being dispatched (I4).
 *
 * <p>Completion has two steps. <em>Settling</em>: every part of the op (one per slot lease, plus a
 * guard held while the caller is still posting) has finished; the op then completes with SUCCESS or
 * with the first failure any part reported. <em>Completing</em>: the result is set exactly once (a
 * CAS), the op leaves the in-flight registry and its {@link OpSignal} fires. {@link #cancel} may
 * complete an op before it settles; it still settles later, when the wire is done with its memory.
 */
final class OpState {
    private static final VarHandle RESULT;
    private static final VarHandle VIEWS;
    private static final VarHandle ERROR;
    private static final VarHandle GATES;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            RESULT = l.findVarHandle(OpState.class, "result", Result.class);
            VIEWS = l.findVarHandle(OpState.class, "views", ViewNode.class);
            ERROR = l.findVarHandle(OpState.class, "error", Failure.class);
            GATES = l.findVarHandle(OpState.class, "gates", GateNode.class);
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

    final long seq;
    final OpKind kind;
    final OpSignal signal;
    private final OpTracker tracker;
    private final TransferFuture future;
    private final AtomicInteger parts = new AtomicInteger(1);
    private volatile long bytes;
    private volatile int immediate;
    @SuppressWarnings("unused") private volatile Failure error;
    private volatile Result result;
    @SuppressWarnings("unused") private volatile ViewNode views;
    @SuppressWarnings("unused") private volatile GateNode gates;
    /** The deferred immediate of a multi-queue-pair write-with-imm, or null. */
    ImmFence fence;
    /** The requests of a one-sided op (for re-issue on another lane when one fails), or null. */
    IoPlan plan;
    /** The local regions the op uses, let go of when it settles, or null. */
    private volatile Regions.Use use;
    /** The {@link Ordering} set this op is in until it settles, or null. */
    volatile java.util.Set<OpState> orderedIn;

    OpState(long seq, OpKind kind, long bytes, OpSignal signal, OpTracker tracker) {
        this.seq = seq;
        this.kind = kind;
        this.bytes = bytes;
        this.signal = signal;
        this.tracker = tracker;
        this.future = new TransferFuture(this);
    }

    TransferFuture future() {
        return future;
    }

    Result result() {
        return result;
    }

    boolean isDone() {
        return result != null;
    }

    boolean isSettled() {
        return parts.get() == 0;
    }

    boolean hasFailed() {
        return error != null;
    }

    /** One more part (a slot lease) that must finish before the op settles. */
    void addPart() {
        parts.incrementAndGet();
    }

    /** A part finished; the last one settles the op. */
    void partDone() {
        int left = parts.decrementAndGet();
        if (left == 0) {
            Regions.Use u = use;
            if (u != null) {
                u.run();
            }
            releaseGates();
            Failure f = error;
            if (f == null) {
                complete(new Result(TransferStatus.SUCCESS, WcStatus.SUCCESS, bytes, immediate, null));
            } else {
                complete(new Result(TransferStatus.FAILED, f.status(), 0, 0, f.message()));
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
        java.util.Set<OpState> in = orderedIn;
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

    /** Waits until the op's signal fires, helping its dispatcher when it can ({@link RailDrain#help}). */
    void awaitSignal() throws InterruptedException {
        RailDrain d = tracker.drainer();
        while (d != null && !signal.isFired()) {
            Boolean fired = d.help(signal, Long.MAX_VALUE / 2);
            if (fired == null) {
                break;
            }
        }
        signal.await();
    }

    /** Waits up to {@code nanos} for the op's signal, helping its dispatcher when it can; whether it fired. */
    boolean awaitSignal(long nanos) throws InterruptedException {
        RailDrain d = tracker.drainer();
        if (d != null && !signal.isFired() && nanos > 0) {
            long start = System.nanoTime();
            Boolean fired = d.help(signal, nanos);
            if (fired != null) {
                return fired;
            }
            nanos -= System.nanoTime() - start;
        }
        return signal.await(nanos);
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
            tracker.completeView(n.view(), future);
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
            OpTracker.completeViewNow(view, future); // completed already: here, on the caller's thread
        }
        return view;
    }

    /** For logs. */
    @Override
    public String toString() {
        Result r = result;
        return kind + " op " + seq + (r == null ? " pending" : " " + r.status());
    }
}
