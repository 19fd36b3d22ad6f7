package io.slime4j.endpoint;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Flow control of eager messages (invariant I5 for the data window's eager part), both directions.
 *
 * <p><b>Spending.</b> Every eager message and every notice consumes a receive of the peer's data
 * window. The peer added {@link EndpointConfig#eagerWindow(int)} receives to that window for them
 * and gives this side that many credits at connect; a sender spends one per eager message or
 * notice ({@link #acquire}, waiting with a bound, or {@link #tryAcquire}) and gets them back in
 * EAGER_CREDIT messages. So at most that many such arrivals are ever outstanding at the peer, and
 * with the rendezvous writes (one per leased recv slot there) they never outnumber its window: no
 * RNR.
 *
 * <p><b>Returning.</b> The receiving side returns a credit once the arrival's receive was re-posted
 * and the message was taken: copied into its recv, dropped, or — for a message that came before its
 * recv — only when that recv takes it ({@link #consumed}); a held message keeps its credit, which is
 * what bounds the memory of held messages and back-pressures a sender whose peer posts no recvs.
 * Returns are batched: one message per eighth of the window (at least one credit), at most
 * {@link EndpointConfig#CREDIT_RESERVE} unacknowledged (the meta send queue and the peer's meta
 * window keep that much room); a batch that could not go waits for the next credit message's
 * completion. Batching cannot starve a sender: if it holds no credit, all {@code window} are at the
 * receiver, fewer than a batch of them taken and not returned, so at least one message waits for a
 * recv the application has yet to post.
 */
final class EagerCredits {
    /** Posts one EAGER_CREDIT message returning {@code n} credits; false if the queue pair refused it. */
    @FunctionalInterface
    interface Returner {
        boolean send(int n);
    }

    private final Semaphore peer = new Semaphore(0);
    /** Credits taken (spent, or about to be) and not come back: what the peer may return at most. */
    private final AtomicInteger taken = new AtomicInteger();
    private final Returner returner;
    private final Object lock = new Object();
    private int returnBatch = 1;
    private int toReturn;
    private int outstanding;
    private boolean woken;

    EagerCredits(Returner returner) {
        this.returner = returner;
    }

    /** At connect: the peer's eager window is what this side may spend; this side's sets the batch. */
    void connected(int peerWindow, int ownWindow) {
        synchronized (lock) {
            returnBatch = Math.max(1, ownWindow / 8);
        }
        peer.release(peerWindow);
    }

    /** Takes a credit, waiting up to {@code timeoutNanos}; false on timeout. */
    boolean acquire(long timeoutNanos) throws InterruptedException {
        if (!peer.tryAcquire(timeoutNanos, TimeUnit.NANOSECONDS)) {
            return false;
        }
        taken.incrementAndGet();
        return true;
    }

    /** Takes a credit if one is free. */
    boolean tryAcquire() {
        if (!peer.tryAcquire()) {
            return false;
        }
        taken.incrementAndGet();
        return true;
    }

    /** A credit that came back is spent again at once (by a waiting notice), never freed. */
    void handOff() {
        taken.incrementAndGet();
    }

    /** A credit taken and not spent came back (the caller then hands it off or frees it). */
    void untake() {
        taken.decrementAndGet();
    }

    /**
     * The peer returned {@code n} credits (the caller then hands them off or frees them); false, and
     * nothing changes, if that is more than were taken and have not come back — bad network input,
     * which must never overflow the semaphore.
     */
    boolean returned(int n) {
        for (;;) {
            int t = taken.get();
            if (n <= 0 || n > t) {
                return false;
            }
            if (taken.compareAndSet(t, t - n)) {
                return true;
            }
        }
    }

    /**
     * Frees {@code n} credits that came back (returned by the peer or taken and not spent) for any
     * sender. {@link EagerPath} calls it only for what its queued notices did not take first.
     */
    void free(int n) {
        peer.release(n);
    }

    /** Credits free to spend now. */
    int available() {
        return peer.availablePermits();
    }

    /** Receiving side: {@code n} arrivals were taken (their receives re-posted); return their credits in batches. */
    void consumed(int n) {
        synchronized (lock) {
            toReturn += n;
            maybeReturn();
        }
    }

    /** A credit message completed (sent or flushed): room for the next one. */
    void onReturnSent(boolean success) {
        synchronized (lock) {
            outstanding--;
            if (success) {
                maybeReturn();
            }
        }
    }

    /** Credits taken and not yet returned (a batch not full, or waiting for room). */
    int unreturned() {
        synchronized (lock) {
            return toReturn;
        }
    }

    private void maybeReturn() {
        if (toReturn >= returnBatch && outstanding < EndpointConfig.CREDIT_RESERVE && returner.send(toReturn)) {
            outstanding++;
            toReturn = 0;
        }
    }

    /**
     * Closing or failed: wakes every sender waiting for a credit (it then finds the endpoint closed
     * or failed). Once only, so the spare permits cannot overflow.
     */
    void wake() {
        synchronized (lock) {
            if (woken) {
                return;
            }
            woken = true;
        }
        peer.release(Integer.MAX_VALUE / 4);
    }
}
