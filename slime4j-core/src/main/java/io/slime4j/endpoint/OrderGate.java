package io.slime4j.endpoint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * What an ordered operation waits for before it goes out: a count of holds (one per earlier op that
 * has not settled, one for the caller still setting it up, and whatever its path adds, e.g. the
 * send's match with a peer meta). The thread that releases the last hold runs the action once —
 * the caller or a dispatch thread, so the action must never block — passing the failure of an
 * earlier op it waited for (null when all succeeded). Gates can be chained: a gate's successor
 * (the next ordered send) holds until this gate's action has run, so ordered sends leave in call
 * order. Its count and successor are fields of the gate (no atomic objects of their own): a gate
 * costs one object.
 */
final class OrderGate {
    private static final VarHandle HOLDS;
    private static final VarHandle SUCCESSOR;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HOLDS = l.findVarHandle(OrderGate.class, "holds", int.class);
            SUCCESSOR = l.findVarHandle(OrderGate.class, "successor", OrderGate.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The successor marker of a gate whose action has run. */
    private static final OrderGate FIRED = new OrderGate(0, f -> { });

    @SuppressWarnings("unused") private volatile int holds;
    private final Consumer<String> action;
    @SuppressWarnings("unused") private volatile OrderGate successor;
    private volatile String earlierFailure;

    OrderGate(int holds, Consumer<String> action) {
        this.holds = holds;
        this.action = action;
    }

    /** One more hold; only while at least one hold is still held (the caller's). */
    void hold() {
        HOLDS.getAndAdd(this, 1);
    }

    /**
     * Releases one hold; the last release runs the action, then releases the successor — in a loop,
     * not recursively, so a long chain of sends opening at once does not deepen the stack. An
     * exception of an action is rethrown after the chain has been walked.
     */
    void release() {
        RuntimeException thrown = null;
        for (OrderGate g = this; g != null; ) {
            int left = (int) HOLDS.getAndAdd(g, -1) - 1;
            if (left > 0) {
                break;
            }
            if (left < 0) {
                throw new IllegalStateException("order gate released more holds than it had");
            }
            try {
                g.action.accept(g.earlierFailure);
            } catch (RuntimeException e) {
                thrown = thrown == null ? e : thrown;
            }
            g = (OrderGate) SUCCESSOR.getAndSet(g, FIRED);
        }
        if (thrown != null) {
            throw thrown;
        }
    }

    /** Releases the hold of an earlier op that failed or was cancelled: the action learns {@code why}. */
    void releaseFailed(String why) {
        if (earlierFailure == null) {
            earlierFailure = why;
        }
        release();
    }

    /**
     * Makes {@code next} hold until this gate's action has run: takes a hold on {@code next} and
     * gives it back at once when this gate fired already. At most one successor.
     */
    void chain(OrderGate next) {
        next.hold();
        if (!SUCCESSOR.compareAndSet(this, null, next)) {
            next.release(); // fired already
        }
    }

    /**
     * Makes this gate, whose action has run, new again with {@code holds} holds, no successor and no
     * earlier failure, for the next op of the same place (a send slot's next send, when its gate
     * {@link #fired()}: the last release runs the action, which may give the slot back, before it
     * marks the gate fired, so a slot can be leased again while its gate is still firing). Only
     * where no other thread can chain to it meanwhile (the send path's lock).
     *
     * @throws IllegalStateException if the action has not run (the gate is still in use)
     */
    void reset(int holds) {
        if (successor != FIRED) {
            throw new IllegalStateException("an order gate reused before its action ran");
        }
        earlierFailure = null;
        this.holds = holds;
        successor = null;
    }

    /** Whether the action has run. */
    boolean fired() {
        return successor == FIRED;
    }
}
