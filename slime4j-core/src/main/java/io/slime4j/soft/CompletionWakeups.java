package io.slime4j.soft;

/**
 * Wake-ups of threads blocked on completion queues, owed during a duty cycle and given at its end:
 * a completion pushed in a cycle does not unpark the queue's waiter at once but marks the queue,
 * and the cycle's end ({@link SoftDevice#doWork}, after the receive and queue-pair work, before
 * the held datagrams are flushed) wakes each marked queue's waiters once. The profile of the 32 B
 * message rate (perf, two processes on 2 cores) put a fifth of the agents' time in being switched
 * out right after unparking a waiter (the woken thread takes the core): once per completion, in
 * the middle of the cycle. Deferred, a cycle that completes several operations wakes each waiter
 * once. Waking after the flush instead (so that the peer also has its ACKs first) gave a little
 * more message rate but cost a round trip the flush's system calls (p50 +27% in a quiet A/B).
 *
 * <p>Used by the holder of the device's duty cycle only (the cycle's acquire and release order
 * it across threads); a push outside a cycle wakes at once ({@link SoftCompletionQueue}).
 */
final class CompletionWakeups {
    /** What a marked queue does when the cycle ends: unpark its waiters. */
    interface Wakeable {
        void wakeNow();
    }

    private Wakeable[] owed = new Wakeable[4];
    private int count;
    /** Between {@link #begin} and {@link #flush}: a cycle runs and will wake what it owes. */
    private boolean open;

    /** A cycle begins: from now until {@link #flush}, wake-ups may be owed. */
    void begin() {
        open = true;
    }

    /**
     * Whether a wake-up may be owed now (a cycle runs and will flush). Outside a cycle (a device
     * closing under a seized duty cycle, completions on a caller when no agent drives) the pusher
     * wakes at once.
     */
    boolean isOpen() {
        return open;
    }

    /** Marks {@code queue}: its waiters are woken at the cycle's end (once, however many pushes). */
    void owe(Wakeable queue) {
        for (int i = 0; i < count; i++) {
            if (owed[i] == queue) {
                return;
            }
        }
        if (count == owed.length) {
            owed = java.util.Arrays.copyOf(owed, count * 2);
        }
        owed[count++] = queue;
    }

    /** Wakes the waiters of every marked queue and clears the marks; how many queues were woken. */
    int flush() {
        open = false;
        int n = count;
        count = 0; // first: a wake that throws leaves nothing marked twice
        for (int i = 0; i < n; i++) {
            Wakeable q = owed[i];
            owed[i] = null;
            q.wakeNow();
        }
        return n;
    }

    /** Queues marked and not yet woken. */
    int owedCount() {
        return count;
    }
}
