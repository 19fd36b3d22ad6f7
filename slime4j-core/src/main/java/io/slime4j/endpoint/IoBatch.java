package io.slime4j.endpoint;

import io.slime4j.verbs.WorkRequest;

/**
 * One one-sided op while its caller posts it: the op, the fence of a deferred immediate, and how far
 * posting got; the layout its signaling needs (each queue pair's last request, each request's next
 * one on the same queue pair) is the plan's. Plain data, confined to the caller's thread; one per
 * {@link IoPlan}, reset for each op ({@link #reset}), so posting allocates nothing of its own.
 */
final class IoBatch {
    OpState op;
    IoPlan plan;
    int immediate;
    /** A write-with-imm whose immediate rides on its last request (every request on one queue pair). */
    boolean inlineImm;
    /** The deferred immediate of a write-with-imm spread over several queue pairs, or null. */
    ImmFence fence;
    /** For each queue pair, the index of the op's last request on it (-1: none). */
    int[] lastOnQp;
    /** For each request, the index of the op's next request on the same queue pair. */
    int[] nextOnQp;
    /** Positions to fill: the data requests, plus one reserved for a deferred immediate. */
    int positions;
    /** The next position to fill. */
    int next;
    /** Positions of the current slot dealt with (posted, or reserved for the fence). */
    int filledInSlot;
    int dataPosted;
    boolean inlineImmPosted;
    /** The dispatcher of the op's rail, or null ({@link OpTracker#drainer(OpState)}); set by the poster. */
    RailDrain rail;
    /** Whether this op's requests say more will follow ({@link OpTracker#postsMore}); set by the poster. */
    boolean more;
    /** Refilled for each request (posting copies it). */
    final WorkRequest wr = new WorkRequest();

    /**
     * Starts posting {@code op} by {@code plan}. {@code ordered}: a write-with-imm that must wait for
     * earlier one-sided ops ({@link Ordering}), so its immediate is deferred even when every request
     * goes to one queue pair.
     */
    IoBatch reset(OpState op, IoPlan plan, int immediate, boolean ordered) {
        this.op = op;
        this.plan = plan;
        this.immediate = immediate;
        boolean withImm = op.kind == OpKind.WRITE_WITH_IMM;
        this.inlineImm = withImm && plan.singleQp && !ordered;
        this.fence = withImm && !inlineImm
                ? new ImmFence(plan.count, ordered, immediate, plan.immQp, plan.immAddress, plan.immKey) : null;
        this.lastOnQp = plan.lastOnQp;
        this.nextOnQp = plan.nextOnQp;
        this.positions = plan.count + (fence != null ? 1 : 0);
        this.next = 0;
        this.filledInSlot = 0;
        this.dataPosted = 0;
        this.inlineImmPosted = false;
        return this;
    }

    /** Whether request {@code r} carries the immediate itself. */
    boolean carriesImm(int r) {
        return inlineImm && r == plan.count - 1;
    }
}
