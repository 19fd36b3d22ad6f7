package io.slime4j.endpoint;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.WorkRequest;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * The send side of one io queue pair under selective signaling (seed 003): decides which requests
 * are signaled, remembers every posted request until a completion retires it, and holds the
 * queue pair's send-queue credits.
 *
 * <p><b>Policy.</b> A request is signaled when it is the last one an op posts on this queue pair, or
 * when {@code every} − 1 unsignaled requests precede it here, or — the pool running dry — when
 * it is the last request of its slot on this queue pair while no io slot is free (the op will
 * probably wait for one of its own slots next, so each must be able to complete on its own). So no more than {@code every − 1}
 * unsignaled requests ever follow the newest signaled one, and {@code every} is at most half the
 * send queue depth ({@link #effectiveEvery}): the queue can never fill with requests that no
 * completion will retire. Deciding, recording and posting happen under one lock per queue pair, so
 * concurrent callers see posting order and signal decisions agree.
 *
 * <p><b>Credits.</b> It is the one owner of its queue pair's send-queue credits: one per send-queue
 * entry, taken ({@link #acquireCredit}, {@link #tryAcquireCredit}) before a request is posted and
 * given back by {@link #retire} (or {@link #releaseCredit} for a request that was not posted).
 *
 * <p><b>Retirement.</b> The queue pair completes requests in posting order. A completion — a
 * signaled success, or any failure or flush, which completes even unsignaled — retires its own
 * request and every older one still recorded (those before it succeeded: a failure stops the
 * queue pair, everything after it flushes with its own completion). {@link #retire} hands the
 * retired (slot, position) pairs to the caller, which counts each down on its slot (I2: a slot
 * returns to its ring only when the completion covering its last request has arrived), and gives
 * back one credit per retired request.
 *
 * <p><b>Covers.</b> An op that is about to wait for a free slot holds slots whose requests may end
 * in unsignaled ones with nothing signaled after them (their completion would only come with
 * later posts, and the op waits for exactly those slots); an op that stops posting early (a wait
 * timed out, interruption, a refused post) leaves such requests behind for good. Either asks for a
 * cover: a zero-length signaled RDMA_WRITE (the verbs contract checks no key for it) that retires
 * them — posted only if the queue pair's newest request is unsignaled. A cover needs a credit;
 * when none is free, the wish is remembered and the next completion or credit returned on this
 * queue pair posts it. Waits for a credit need no cover: at most {@code every − 1} of the queue's
 * {@code depth ≥ 2·every} entries are uncovered, the rest complete and return credits. Covers
 * happen only when the io slot pool runs dry or an op stops early.
 *
 * <p>Threading: {@link #post}, {@link #cover} and {@link #releaseCredit} from any thread;
 * {@link #retire} from the dispatch thread only (it owns the scratch arrays).
 */
final class IoSendQueue {
    /** The slot index of a cover's wrId: beyond every real slot ({@link EndpointConfig#ioSlots()} ≤ 2^16). */
    static final int COVER_SLOT = WrIds.MAX_SLOTS - 1;

    final int index;
    private final Semaphore credits;
    /** Guarded by this; replaced by {@link #adopt} when the lane is re-established. */
    private QueuePair qp;
    private final int every;
    private final BooleanSupplier closing;
    private final int[] ringSlot;
    private final int[] ringSub;
    private final int mask;
    private long head;
    private long tail;
    private int sinceSignal;
    private boolean coverWanted;
    /** Write-with-imm requests posted on {@link #qp}, the part of them told to the peer, and the rest of the old pair's. */
    private int immPosted;
    private int immStated;
    private int unstatedOfOld;
    private boolean woken;
    private final WorkRequest coverWr = new WorkRequest();
    /** Retired entries of the last {@link #retire} (dispatch thread). */
    final int[] retiredSlot;
    final int[] retiredSub;

    /** Requests posted (covers included). */
    final LongAdder posted = new LongAdder();
    /** Signaled requests by reason: every Nth, an op's last on this queue pair, a slot's last with the pool dry. */
    final LongAdder periodicSignals = new LongAdder();
    final LongAdder lastOfOpSignals = new LongAdder();
    final LongAdder dryPoolSignals = new LongAdder();
    /** Covers posted (each also counted in {@link #posted}, none in the signal counts). */
    final LongAdder covers = new LongAdder();

    IoSendQueue(int index, QueuePair qp, int depth, int signalEvery, BooleanSupplier closing) {
        this.index = index;
        this.qp = qp;
        this.credits = new Semaphore(depth);
        this.every = effectiveEvery(signalEvery, depth);
        this.closing = closing;
        int size = Integer.highestOneBit(Math.max(1, depth - 1)) << 1;
        this.ringSlot = new int[size];
        this.ringSub = new int[size];
        this.mask = size - 1;
        this.retiredSlot = new int[size];
        this.retiredSub = new int[size];
    }

    /**
     * The signaling interval used on a send queue of {@code depth} entries: {@code signalEvery},
     * capped at half the depth (at least 1), so that signaled requests always sit within the queue.
     */
    static int effectiveEvery(int signalEvery, int depth) {
        return Math.max(1, Math.min(signalEvery, depth / 2));
    }

    /**
     * Decides whether {@code wr} is signaled, records it for (slot, position) and posts it, as one
     * step. The caller holds a credit for it; if posting throws, nothing is recorded and the caller
     * keeps the credit.
     *
     * @param lastOfOp whether no further request of the op will be posted on this queue pair
     * @param dryPool  whether it is its slot's last request here and no io slot is free
     * @param drain    the rail whose completions the posting thread handles after the post if the
     *                 post may complete at once ({@link RailDrain#beginPosting}, taken inside this
     *                 queue's lock so that a poster waiting for the lock holds nothing), or null
     */
    void post(WorkRequest wr, int slot, int sub, boolean lastOfOp, boolean dryPool, RailDrain drain) {
        boolean handles = false;
        try {
            synchronized (this) {
                handles = drain != null && drain.beginPosting();
                post(wr, slot, sub, lastOfOp, dryPool);
            }
        } finally {
            if (handles) {
                drain.endPosting(); // outside the lock: handling a completion retires requests here
            }
        }
    }

    /** As above, with no completion handled by the poster. */
    void post(WorkRequest wr, int slot, int sub, boolean lastOfOp, boolean dryPool) {
        synchronized (this) {
            boolean periodic = sinceSignal + 1 >= every;
            boolean signal = lastOfOp || dryPool || periodic;
            wr.signaled(signal);
            append(wr, slot, sub, signal);
            if (lastOfOp) {
                lastOfOpSignals.increment();
            } else if (dryPool) {
                dryPoolSignals.increment();
            } else if (periodic) {
                periodicSignals.increment();
            }
        }
    }

    private void append(WorkRequest wr, int slot, int sub, boolean signal) {
        if (tail - head > mask) {
            throw new IllegalStateException("io QP " + index + ": more requests recorded than send-queue credits");
        }
        qp.postSend(wr);
        if (wr.opcode() == Opcode.RDMA_WRITE_WITH_IMM) {
            immPosted++;
        }
        int i = (int) (tail & mask);
        ringSlot[i] = slot;
        ringSub[i] = sub;
        tail++;
        posted.increment();
        if (signal) {
            sinceSignal = 0;
            coverWanted = false;
        } else {
            sinceSignal++;
        }
    }

    /**
     * Makes sure the newest request recorded here will be retired by a completion: posts a cover if
     * it is unsignaled (now, or as soon as a credit is back). For an op that stopped posting early.
     */
    void cover() {
        synchronized (this) {
            if (sinceSignal == 0 || closing.getAsBoolean()) {
                coverWanted = false;
                return;
            }
            if (!credits.tryAcquire()) {
                coverWanted = true;
                return;
            }
            coverWr.clear().wrId(WrIds.encode(WrIds.IO, index, COVER_SLOT, 0, 0)).opcode(Opcode.RDMA_WRITE);
            try {
                append(coverWr, COVER_SLOT, 0, true);
                covers.increment();
            } catch (RuntimeException e) {
                credits.release(); // the queue pair is closed: flushing retires everything anyway
                coverWanted = false;
            }
        }
    }

    /**
     * Lane recovery: moves this lane to the re-established queue pair {@code next} if no request of
     * the old one is still recorded (every one of them retired by its completion: the old queue pair's
     * completions all come before any of the new one's, so {@link #retire} never takes one for the
     * other). Posts after this go to {@code next}. Returns whether it moved; if not, call again after
     * the next retirement.
     */
    boolean adopt(QueuePair next) {
        synchronized (this) {
            if (head != tail) {
                return false;
            }
            unstatedOfOld = immPosted - immStated;
            immPosted = 0;
            immStated = 0;
            qp = next;
            sinceSignal = 0;
            coverWanted = false;
            return true;
        }
    }

    /**
     * Lane recovery: the write-with-imm requests posted on the current queue pair so far, told to
     * the peer (which refunds those it never consumed: {@link ImmRefunds}). Call once the queue pair
     * is in ERR: any posted later never reaches the peer and is refunded here at {@link #adopt}.
     */
    synchronized int stateImmPosted() {
        immStated = immPosted;
        return immStated;
    }

    /** After {@link #adopt}: write-with-imm requests posted on the old queue pair after its last statement. */
    synchronized int unstatedImmOfOld() {
        int n = unstatedOfOld;
        unstatedOfOld = 0;
        return n;
    }

    /** Requests posted and not yet retired (diagnostics). */
    synchronized int outstanding() {
        return (int) (tail - head);
    }

    /** Takes a credit for one request, waiting up to {@code nanos}; false on timeout. */
    boolean acquireCredit(long nanos) throws InterruptedException {
        return credits.tryAcquire(nanos, TimeUnit.NANOSECONDS);
    }

    /** Takes a credit if one is free now (the dispatch thread never waits). */
    boolean tryAcquireCredit() {
        return credits.tryAcquire();
    }

    /** Credits free now. */
    int availableCredits() {
        return credits.availablePermits();
    }

    /**
     * Closing or failed: wakes every caller waiting for a credit (it then finds the endpoint closed
     * or failed). Once only: the spare credits must not overflow.
     */
    void wakeCreditWaiters() {
        synchronized (this) {
            if (woken) {
                return;
            }
            woken = true;
        }
        credits.release(Integer.MAX_VALUE / 4);
    }

    /** Gives back a credit that was taken for a request that was not posted. */
    void releaseCredit() {
        credits.release();
        coverIfWanted();
    }

    private void coverIfWanted() {
        boolean wanted;
        synchronized (this) {
            wanted = coverWanted;
        }
        if (wanted) {
            cover();
        }
    }

    /**
     * Dispatch thread: a completion of the request at (slot, position) — or of the oldest cover when
     * {@code slot} is {@link #COVER_SLOT} — arrived. Retires it and every older recorded request,
     * fills {@link #retiredSlot}/{@link #retiredSub} oldest first (the completion's own entry last)
     * and gives back their credits.
     *
     * @return how many were retired; 0 if the request was not recorded (a foreign completion)
     */
    int retire(int slot, int sub) {
        int n;
        synchronized (this) {
            long match = -1;
            for (long s = head; s < tail; s++) {
                int i = (int) (s & mask);
                if (ringSlot[i] == slot && (slot == COVER_SLOT || ringSub[i] == sub)) {
                    match = s;
                    break;
                }
            }
            if (match < 0) {
                return 0;
            }
            n = (int) (match - head + 1);
            for (int k = 0; k < n; k++) {
                int i = (int) ((head + k) & mask);
                retiredSlot[k] = ringSlot[i];
                retiredSub[k] = ringSub[i];
            }
            head = match + 1;
        }
        credits.release(n);
        coverIfWanted();
        return n;
    }
}
