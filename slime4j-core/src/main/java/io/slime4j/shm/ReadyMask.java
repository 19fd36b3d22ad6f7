package io.slime4j.shm;

import java.lang.foreign.MemorySegment;

/**
 * Which queue pairs of a device a duty cycle runs, so that a cycle costs the queue pairs that have
 * work and not every one the device has (an engine with many peers on one host has hundreds).
 *
 * <p>Whoever gives a queue pair work sets its bit in the ready mask of the device file
 * ({@link #mark}): its peer after publishing requests or asking again for one, a posting thread
 * that leaves its request to the duty cycle, a state change. The duty cycle takes the marks into its
 * own set of active queue pairs ({@link #collect}) and runs those; it drops one whose turn did
 * nothing and that needs no turn of its own ({@link #ran}: requests outstanding, whose timers run
 * and whose answers come unmarked; a peer not attached yet). Every {@code sweepNanos} a cycle also
 * runs every queue pair once, which bounds anything a mark missed; {@link #sweepFinds()} counts the
 * turns that found work only then, and for which no mark came after either.
 *
 * <p>{@link #mark} may be called by any thread of any process that maps the device file; the rest
 * only by the holder of the device's progress lock.
 */
final class ReadyMask {
    private final MemorySegment file;
    private final long sweepNanos;
    private final long[] active = new long[Layout.READY_WORDS];
    /** Queue pairs a sweep added that were not active: a turn of theirs that does work may be a missed mark. */
    private final long[] sweptOnly = new long[Layout.READY_WORDS];
    /**
     * Queue pairs a sweep's turn found work in while their mark was not set: a missed mark unless
     * the next {@link #collect} takes one (the mark follows the work it announces, so a poster may
     * still be between the two).
     */
    private final long[] suspects = new long[Layout.READY_WORDS];
    /** Words of the mask in use: up to the highest queue pair number's. */
    private volatile int words = 1;
    private long sweptAt;
    private long sweepFinds;
    private long turns;

    /** The mask of the device whose file is {@code file}; a sweep every {@code sweepNanos} from {@code now}. */
    ReadyMask(MemorySegment file, long sweepNanos, long now) {
        this.file = file;
        this.sweepNanos = sweepNanos;
        this.sweptAt = now;
    }

    /**
     * Marks queue pair {@code qpn} of the device whose file is {@code device} ready. An atomic
     * read-modify-write, so what the caller released for the queue pair before is seen by the cycle
     * that takes the mark.
     */
    static void mark(MemorySegment device, int qpn) {
        Layout.getAndBitwiseOr(device, offset(qpn >>> 6), 1L << (qpn & 63));
    }

    private static long offset(int word) {
        return Layout.DEV_READY + word * 8L;
    }

    /** A queue pair numbered {@code qpn} exists now: the cycles look at its word of the mask. */
    synchronized void cover(int qpn) {
        int w = (qpn >>> 6) + 1;
        if (w > words) {
            words = w;
        }
    }

    /** Words in use: a cycle runs the active bits of words {@code 0..words()-1}. */
    int words() {
        return words;
    }

    /** The active queue pairs of word {@code w}, a bit each. */
    long active(int w) {
        return active[w];
    }

    /**
     * Takes the marks set since the last call into the active set, and every {@code sweepNanos}
     * the numbers of {@code all} (the device's queue pairs) too.
     */
    void collect(long now, Iterable<ShmQueuePair> all) {
        for (int w = 0, n = words; w < n; w++) {
            long off = offset(w);
            long taken = Layout.getVolatile(file, off) != 0 ? Layout.getAndSet(file, off, 0) : 0;
            active[w] |= taken;
            if (suspects[w] != 0) {
                sweepFinds += Long.bitCount(suspects[w] & ~taken);
                suspects[w] = 0;
            }
        }
        if (now - sweptAt >= sweepNanos) {
            sweptAt = now;
            for (ShmQueuePair qp : all) {
                int q = qp.qpn();
                long bit = 1L << (q & 63);
                if ((active[q >>> 6] & bit) == 0) {
                    sweptOnly[q >>> 6] |= bit;
                    active[q >>> 6] |= bit;
                }
            }
        }
    }

    /** Makes {@code qpn} active now (holder of the progress lock: a poster whose requests are now outstanding). */
    void activate(int qpn) {
        active[qpn >>> 6] |= 1L << (qpn & 63);
    }

    /**
     * Records the turn {@code qpn} just had: {@code work} done, and whether it {@code stays} for the
     * next cycle though unmarked ({@code ShmQueuePair.staysAfterTurn}); drops it from the active set
     * when neither.
     */
    void ran(int qpn, int work, boolean stays) {
        int w = qpn >>> 6;
        long bit = 1L << (qpn & 63);
        turns++;
        if ((sweptOnly[w] & bit) != 0) {
            sweptOnly[w] &= ~bit;
            if (work > 0 && (Layout.getVolatile(file, offset(w)) & bit) == 0) {
                suspects[w] |= bit;
            }
        }
        if (work == 0 && !stays) {
            active[w] &= ~bit;
        }
    }

    /** Drops {@code qpn} from the active set (its queue pair is gone). */
    void drop(int qpn) {
        long keep = ~(1L << (qpn & 63));
        active[qpn >>> 6] &= keep;
        sweptOnly[qpn >>> 6] &= keep;
        suspects[qpn >>> 6] &= keep;
    }

    /**
     * Turns that found work only because a sweep ran them, with no mark set then or taken by the
     * next collect: marks that were missed (0 when every path marks).
     */
    long sweepFinds() {
        return sweepFinds;
    }

    /** Queue-pair turns the duty cycles ran. */
    long turns() {
        return turns;
    }
}
