package io.slime4j.endpoint;

import io.slime4j.verbs.WcStatus;

/**
 * The endpoint's ordering rule, kept in one place: which earlier operations a notification (a send,
 * a write-with-imm) or a {@link RdmaEndpoint#flush()} waits for. An op counts as earlier once its
 * posting call has returned ({@link #posted}); it stops counting when it settles (every request of
 * it completed, which in RC means acknowledged by the peer, so its data is placed there).
 *
 * <p>A notification goes out only after every earlier one-sided op (read, write, write-with-imm)
 * has settled; {@code flush()} completes after every earlier one-sided op and send has. The wait is
 * an {@link OrderGate} released by the settling ops on whichever thread settles them: no caller
 * blocks. An op that failed or was cancelled counts as settled once the wire is done with it: its
 * own future reports that, and notifications after it still go (failing them would spread one
 * op's failure to unrelated callers); {@code flush()} alone completes FAILED, naming it.
 *
 * <p>Cost: one insertion into and removal from a {@link Chain} per one-sided op and per send (a few
 * stores under a lock, no allocation: the ops are linked through their own fields), and a walk of
 * the unsettled ones per notification; a notification posted while one-sided ops are in flight leaves about one
 * round trip after the last of them completes instead of at once.
 */
final class Ordering {
    private final String endpoint;
    private final OpTracker tracker;
    private final Lifecycle lifecycle;
    private final Chain unsettledIo = new Chain();
    private final Chain unsettledSends = new Chain();

    /**
     * The unsettled ops of one kind, doubly linked through their own {@code orderPrev} and
     * {@code orderNext} fields (an op is in at most one chain), guarded by the chain's lock.
     */
    static final class Chain {
        private OpState head;
        private volatile int size;

        synchronized void add(OpState op) {
            op.orderPrev = null;
            op.orderNext = head;
            if (head != null) {
                head.orderPrev = op;
            }
            head = op;
            size++;
        }

        /** Takes {@code op} out (it settled); nothing when it is not in. */
        synchronized void remove(OpState op) {
            OpState prev = op.orderPrev;
            OpState next = op.orderNext;
            if (prev == null && head != op) {
                return; // not in this chain
            }
            if (prev != null) {
                prev.orderNext = next;
            } else {
                head = next;
            }
            if (next != null) {
                next.orderPrev = prev;
            }
            op.orderPrev = null;
            op.orderNext = null;
            size--;
        }

        boolean isEmpty() {
            return size == 0;
        }

        /** Makes {@code gate} hold on every op in the chain; how many it holds on. */
        synchronized int holdAll(OrderGate gate) {
            int n = 0;
            for (OpState op = head; op != null; op = op.orderNext) {
                if (op.holdUntilSettled(gate)) { // never drops the gate's count to 0: its caller holds one
                    n++;
                }
            }
            return n;
        }
    }

    Ordering(Lifecycle lifecycle, OpTracker tracker) {
        this.endpoint = lifecycle.name();
        this.lifecycle = lifecycle;
        this.tracker = tracker;
    }

    /**
     * {@code op}'s posting call is returning, its guard still held (so it has not settled): later
     * notifications and flushes wait for it until it settles, which takes it out of the set.
     */
    void posted(OpState op) {
        Chain chain = op.kind == OpKind.SEND ? unsettledSends : unsettledIo;
        op.orderedIn = chain;
        chain.add(op);
    }

    /** Makes {@code gate} hold on every earlier unsettled one-sided op; how many it holds on. */
    int holdOnEarlierIo(OrderGate gate) {
        return unsettledIo.holdAll(gate);
    }

    /** Whether any earlier one-sided op has not settled (a hint: it may settle at any time). */
    boolean ioInFlight() {
        return !unsettledIo.isEmpty();
    }

    /**
     * A FLUSH op that completes once every one-sided op and send posted before this call has
     * settled; FAILED, naming it, when one of them failed or was cancelled.
     */
    TransferFuture flush() {
        lifecycle.checkUsable();
        OpState op = tracker.newOp(OpKind.FLUSH, 0);
        OrderGate gate = new OrderGate(1, failure -> {
            if (failure != null) {
                op.fail(WcStatus.REM_ABORT_ERR, "endpoint " + endpoint + ": flush op " + op.seq
                        + ": an operation posted before it did not succeed: " + failure);
            }
            op.partDone();
        });
        unsettledIo.holdAll(gate);
        unsettledSends.holdAll(gate);
        gate.release();
        return op.future();
    }
}
