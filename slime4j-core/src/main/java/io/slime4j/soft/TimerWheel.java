package io.slime4j.soft;

/**
 * A hashed timer wheel for the progress agent's retransmit timers: {@code slots} buckets of
 * {@code tickNanos} each, holding intrusive {@link Timer}s in doubly linked lists. Scheduling and
 * cancelling are O(1) and allocate nothing; a poll costs the ticks it advances (at most one
 * revolution) plus the timers it visits.
 *
 * <p>A timer keeps its absolute deadline and is compared against the clock when its bucket comes
 * round, so deadlines any number of revolutions ahead are fine. A timer never fires before its
 * deadline, and fires at most one tick after it if {@link #poll} is called at least once per tick.
 *
 * <p>Times are nanoseconds on one monotonic clock, such as {@link System#nanoTime()}, compared as
 * plain {@code long}s. Threading: not thread-safe; owned by one thread (the progress agent).
 */
final class TimerWheel {

    /**
     * An intrusive timer: the wheel links it into a bucket through its own fields. Engine objects
     * extend it (a send-window segment) or hold one. A timer is on at most one wheel at a time.
     */
    static class Timer {
        Timer next;
        Timer prev;
        long deadline;
        int bucket;
        /** The wheel it is scheduled on; {@code null} when not scheduled. */
        TimerWheel wheel;

        /** Creates an unscheduled timer. */
        Timer() {
        }

        /** Whether the timer is scheduled, i.e. will fire unless cancelled. */
        final boolean isScheduled() {
            return wheel != null;
        }

        /** The deadline it was last scheduled for, in nanoseconds. */
        final long deadlineNanos() {
            return deadline;
        }
    }

    /** Called by {@link #poll} for each expired timer. */
    @FunctionalInterface
    interface Handler {

        /**
         * {@code timer} expired; it is no longer scheduled. May schedule and cancel any timer on
         * this wheel, including {@code timer}, but must not call {@link TimerWheel#poll}.
         */
        void onExpiry(Timer timer, long nowNanos);
    }

    private final Timer[] buckets;
    private final int mask;
    private final long tickNanos;
    private final long startNanos;
    /** First tick the next poll visits; no scheduled timer lies in an earlier tick. */
    private long currentTick;
    private int size;
    /**
     * The deadline scheduled last and its tick: the packets a cycle sends are scheduled for one
     * deadline (the cycle's time plus the timeout), and a tick is a 64-bit division.
     */
    private long lastDeadline;
    private long lastTick;
    /** Next timer to visit in the bucket being expired; kept valid by {@link #unlink}. */
    private Timer cursor;
    private boolean polling;

    /**
     * A wheel whose tick 0 starts at {@code startNanos}.
     *
     * @param tickNanos  resolution, positive
     * @param slots      buckets, a power of two; one revolution is {@code slots * tickNanos}
     * @param startNanos current time
     * @throws IllegalArgumentException if {@code tickNanos} is not positive or {@code slots} not a
     *                                  power of two
     */
    TimerWheel(long tickNanos, int slots, long startNanos) {
        if (tickNanos <= 0) {
            throw new IllegalArgumentException("tickNanos must be positive, was " + tickNanos);
        }
        if (slots <= 0 || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, was " + slots);
        }
        this.buckets = new Timer[slots];
        this.mask = slots - 1;
        this.tickNanos = tickNanos;
        this.startNanos = startNanos;
        this.lastDeadline = startNanos;
        this.lastTick = tickOf(startNanos);
    }

    /**
     * Schedules {@code timer} to fire at {@code deadlineNanos}, moving it if already scheduled. A
     * deadline already past fires at the next poll.
     *
     * @throws IllegalArgumentException if {@code timer} is scheduled on another wheel
     */
    void schedule(Timer timer, long deadlineNanos) {
        if (timer.wheel == this) {
            unlink(timer);
        } else if (timer.wheel == null) {
            timer.wheel = this;
            size++;
        } else {
            throw new IllegalArgumentException("timer is scheduled on another wheel");
        }
        timer.deadline = deadlineNanos;
        if (deadlineNanos != lastDeadline) {
            lastTick = tickOf(deadlineNanos);
            lastDeadline = deadlineNanos;
        }
        int b = (int) Math.max(lastTick, currentTick) & mask;
        Timer head = buckets[b];
        timer.bucket = b;
        timer.prev = null;
        timer.next = head;
        if (head != null) {
            head.prev = timer;
        }
        buckets[b] = timer;
    }

    /**
     * Cancels {@code timer} in O(1).
     *
     * @return whether it was scheduled
     * @throws IllegalArgumentException if {@code timer} is scheduled on another wheel
     */
    boolean cancel(Timer timer) {
        if (timer.wheel != this) {
            if (timer.wheel == null) {
                return false;
            }
            throw new IllegalArgumentException("timer is scheduled on another wheel");
        }
        unlink(timer);
        timer.wheel = null;
        size--;
        return true;
    }

    /**
     * Advances the wheel to {@code nowNanos} and fires, once each, the timers whose deadline is at
     * or before it. Visits at most one revolution of buckets however long since the last poll.
     * A timer the handler schedules with a deadline already past may wait for the next poll.
     *
     * @return the number of timers fired
     * @throws IllegalStateException if called from a handler
     */
    int poll(long nowNanos, Handler handler) {
        if (polling) {
            throw new IllegalStateException("poll called from a timer handler");
        }
        long from = currentTick;
        long to = Math.max(tickOf(nowNanos), from);
        long visits = Math.min(to - from, mask) + 1;
        // Timers the handler schedules for the past land in bucket `to`, which this or the next
        // poll visits.
        currentTick = to;
        polling = true;
        int fired = 0;
        long i = 0;
        try {
            for (; i < visits; i++) {
                fired += expire((int) (from + i) & mask, nowNanos, handler);
            }
        } finally {
            polling = false;
            cursor = null;
            if (i < visits) {
                currentTick = from + i; // a handler threw: resume at the bucket it left
            }
        }
        return fired;
    }

    /** Timers scheduled. */
    int size() {
        return size;
    }

    /** Whether no timer is scheduled. */
    boolean isEmpty() {
        return size == 0;
    }

    /** The resolution in nanoseconds. */
    long tickNanos() {
        return tickNanos;
    }

    private int expire(int b, long nowNanos, Handler handler) {
        int fired = 0;
        Timer t = buckets[b];
        while (t != null) {
            cursor = t.next;
            if (t.deadline <= nowNanos) {
                unlink(t);
                t.wheel = null;
                size--;
                fired++;
                handler.onExpiry(t, nowNanos);
            }
            t = cursor;
        }
        return fired;
    }

    private void unlink(Timer t) {
        Timer next = t.next;
        Timer prev = t.prev;
        if (t == cursor) {
            cursor = next;
        }
        if (prev == null) {
            buckets[t.bucket] = next;
        } else {
            prev.next = next;
        }
        if (next != null) {
            next.prev = prev;
        }
        t.next = null;
        t.prev = null;
    }

    /** The tick holding {@code nanos}, saturating rather than overflowing. */
    private long tickOf(long nanos) {
        long rel = nanos - startNanos;
        if (((nanos ^ startNanos) & (nanos ^ rel)) < 0) {
            rel = nanos < startNanos ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return Math.floorDiv(rel, tickNanos);
    }
}
