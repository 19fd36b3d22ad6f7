package io.slime4j.endpoint;

/**
 * The endpoint's spare {@link IoPlan}s: a caller takes one to plan an op ({@link #take}), the op
 * gives it back when it settles ({@link IoPlan#recycle}). A bounded stack under a lock; when it is
 * empty a new plan is made, when full a returned one is left to the collector, so neither side ever
 * waits for the other. Bounded by the io slots: more ops than slots cannot be in flight.
 */
final class IoPlanPool {
    private final Transport transport;
    private final int qps;
    private final IoPlan[] spare;
    private int n;

    IoPlanPool(Transport transport, int qps, int capacity) {
        this.transport = transport;
        this.qps = qps;
        this.spare = new IoPlan[Math.max(1, capacity)];
    }

    /** A spare plan, or a new one. */
    IoPlan take() {
        IoPlan p;
        synchronized (this) {
            if (n == 0) {
                p = null;
            } else {
                p = spare[--n];
                spare[n] = null;
            }
        }
        return p != null ? p : new IoPlan(transport, qps, this);
    }

    /** A plan whose op settled. */
    synchronized void give(IoPlan p) {
        if (n < spare.length) {
            spare[n++] = p;
        }
    }

    /** Spare plans now (for tests). */
    synchronized int spare() {
        return n;
    }
}
