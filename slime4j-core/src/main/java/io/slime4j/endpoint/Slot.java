package io.slime4j.endpoint;

import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Layer 3: a pooled dispatch slot. Leased from its {@link SlotPool}'s free ring for one op, it is
 * what the work-request ids point to ({@link WrIds}: slot index plus position), holds the op for the
 * completions of those requests, counts them, and goes back to the ring only when the last one has
 * been dispatched (I2). It is not the op's identity and not its completion owner: futures never
 * see a slot, and the slot keeps no generation counter.
 *
 * <p>Storage: per request position, the queue pair index and length (io slots); the local buffer of
 * a send and the matched peer meta (send slots); the offset of the slot's meta buffer in the
 * endpoint's control region (recv slots).
 *
 * <p>Threading: written by the leasing thread before it posts the slot's requests; read and
 * counted down by the dispatch thread (and by the leasing thread for requests it did not post).
 */
final class Slot {
    final int index;
    final int[] subQp;
    final long[] subLength;
    /** Io slots: the plan request at each position (-1 for a fenced immediate), for re-issue on another lane. */
    final int[] subRequest;
    /** Send slots: the local buffer. */
    long localAddress;
    long localKey;
    long length;
    /**
     * Send slots: the gate its data waits behind ({@link Ordering}), and the peer meta it was
     * matched with (null: it never will be) with whether that recv was cancelled, kept for the gate.
     */
    OrderGate gate;
    Wire32.Meta meta;
    boolean recvCancelled;
    /**
     * Message slots: the caller of the send, while its call runs (else null): a gate that opens on
     * that thread opens inside the call, which waits or posts again soon ({@code WorkRequest.more}).
     * Plain: a stale value can only make a post held that need not be.
     */
    Thread caller;
    /**
     * Message slots: this lease's message sequence number (the k-th send or recv of the endpoint is
     * message k, modulo 2^28 on the wire); send slots: whether it goes eagerly ({@link EagerPath});
     * recv slots: whether it is small enough that it sends no meta ({@code small}), whether it sent
     * one late after all ({@code lateMeta}: a notice came), and the buffer an eager message is copied to.
     */
    int msgSeq;
    boolean eager;
    boolean small;
    volatile boolean lateMeta;
    /** Recv slots: the region an eager message is copied to, and where in it (no slice per recv). */
    java.lang.foreign.MemorySegment recvSegment;
    long recvOffset;
    /** Recv slots: where the slot's 32-byte meta message lives in the control region. */
    final long metaOffset;
    /** Recv slots: that meta message's place as a segment, made at the slot's first recv and kept. */
    java.lang.foreign.MemorySegment metaBuffer;

    private volatile OpState tenant;
    private volatile WeakReference<OpState> weakTenant;
    private final AtomicInteger remaining = new AtomicInteger();
    private volatile boolean released;
    boolean leased;
    /** Recv slots: the peer was told that this lease's recv was cancelled. */
    boolean cancelNotified;
    /**
     * Recv slots: this lease's meta has been posted, so a cancel notice posted now follows it on the
     * meta queue pair ({@link CancelNotices}).
     */
    volatile boolean metaPosted;

    Slot(int index, int requests, long metaOffset) {
        this.index = index;
        this.subQp = new int[requests];
        this.subLength = new long[requests];
        this.subRequest = new int[requests];
        this.metaOffset = metaOffset;
    }

    /**
     * Installs the op for this lease, expecting {@code completions} count-downs before release.
     * A strong reference is the lease's hold on the op (I3); the weak form exists for the test of I3.
     */
    void lease(OpState op, int completions, boolean strong) {
        cancelNotified = false; // before the tenant is published: whoever sees the op sees these
        metaPosted = false;
        if (strong) {
            tenant = op;
            weakTenant = null;
        } else {
            tenant = null;
            weakTenant = new WeakReference<>(op);
        }
        released = false;
        remaining.set(completions);
    }

    /**
     * Expects one more completion in the current lease, if it is still running (some completion
     * outstanding); false if it already ended. After true, the lease cannot end before that one.
     */
    boolean extend() {
        int n;
        do {
            n = remaining.get();
            if (n <= 0) {
                return false;
            }
        } while (!remaining.compareAndSet(n, n + 1));
        return true;
    }

    /** The op of the current lease; null between leases (or, under a broken hook, collected). */
    OpState tenant() {
        OpState op = tenant;
        if (op == null) {
            WeakReference<OpState> w = weakTenant;
            op = w == null ? null : w.get();
        }
        return op;
    }

    /** Counts down {@code n} completions; whether that was the last of the lease. */
    boolean countDown(int n) {
        int left = remaining.addAndGet(-n);
        if (left < 0) {
            throw new IllegalStateException("slot " + index + " counted " + (-left) + " completions more than its lease expected");
        }
        return left == 0;
    }

    /** Marks the lease finished once; false if it already was (only under a broken I2 hook). */
    boolean finish() {
        if (released) {
            return false;
        }
        released = true;
        return true;
    }

    /** Forgets the op (on release). */
    void clear() {
        tenant = null;
        weakTenant = null;
    }

    int remaining() {
        return remaining.get();
    }
}
