package io.slime4j.verbs;

import java.util.concurrent.TimeUnit;

/**
 * A completion queue: a bounded ring of {@link WorkCompletion}s filled by the device and drained
 * by pollers, into caller-owned storage. Safe for several polling threads.
 */
public interface CompletionQueue extends AutoCloseable {

    /** Capacity in completions. */
    int capacity();

    /**
     * Moves up to {@code into.length} completions into {@code into}, oldest first, and returns how
     * many. Never blocks.
     *
     * @throws CompletionQueueOverflowException once the queue has overflowed and every completion
     *                                          that fitted has been polled
     */
    int poll(WorkCompletion[] into);

    /**
     * As {@link #poll}, but waits up to {@code timeout} for at least one completion.
     *
     * @return the number polled, 0 if the timeout passed first
     */
    int await(WorkCompletion[] into, long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Waits up to {@code timeout} until at least one completion can be polled, polling none: lets
     * a thread wait for the queue and then poll under its own lock, so that whoever polls also
     * handles what it polled, in order.
     *
     * @return whether a completion is ready (false on timeout or once the queue is closed; true
     *         once it overflowed, so that the next {@link #poll} reports it)
     */
    boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * As {@link #awaitReady}, but passive: the calling thread only sleeps until a completion is
     * pushed, and never runs the device's progress itself (which {@link #awaitReady} does on a
     * device whose waiters busy-poll); and while another thread waits in {@link #awaitReady}, a
     * completion wakes that one, not this one: an active waiter polls what it waited for itself, or
     * wakes the passive one when it leaves completions behind. For a background thread that
     * handles the completions nobody is waiting for (an endpoint's dispatch thread), so that only
     * threads waiting for their own operations spin or wake.
     */
    default boolean awaitReadyPassively(long timeout, TimeUnit unit) throws InterruptedException {
        return awaitReady(timeout, unit);
    }

    /**
     * Whether a post to a queue pair of this queue may complete requests before the post returns,
     * on the posting thread (the shared-memory device's copies into memory the peer exports; a
     * busy-polling soft device, whose posting thread runs a duty cycle that takes ACKs in).
     * Constant for the queue's lifetime. A consumer
     * that polls right after such a post says so with {@link #beginPolling()}, so that what the
     * post completes wakes no passive waiter for nothing.
     */
    default boolean completesOnPost() {
        return false;
    }

    /**
     * Whether the device makes progress in the threads that wait for this queue: true if and only
     * if {@link #awaitReady} and {@link #await} run the device's progress on the calling thread and
     * the device may otherwise make none for a while (busy-polling: its agent may rest while they
     * wait). A consumer waiting for a completion some other way (on a signal of its own) then comes
     * back to wait on this queue soon rather than rely on another thread to drive the device for
     * it. Returning false wrongly can stall such a consumer until the device's agent runs;
     * returning true wrongly costs it a look now and then. Constant for the queue's lifetime;
     * false by default.
     */
    default boolean drivenByWaiters() {
        return false;
    }

    /**
     * The calling thread polls this queue as soon as the calls it makes next return (a post that may
     * complete at once, or a consumer between two looks at the queue): until {@link #endPolling()},
     * a completion wakes no thread blocked in {@link #awaitReadyPassively} (threads in
     * {@link #awaitReady} are woken as always). Pair with {@link #endPolling()} in a
     * {@code finally}, never block in between except in this queue's own waits, and then poll, or
     * wake the passive waiter if completions are left. A queue may ignore it (the default): its
     * passive waiters are then woken as usual.
     */
    default void beginPolling() {
    }

    /** Ends {@link #beginPolling()}; the caller polls next. */
    default void endPolling() {
    }

    /** Whether the queue overflowed. */
    boolean isOverflowed();

    @Override
    void close();
}
