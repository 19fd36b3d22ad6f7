package io.slime4j.wire.udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Several GSO runs ({@link GsoBurst}s) held back to leave in one {@code sendmmsg}: a run ends at
 * 64 KiB, at 64 datagrams or at a shorter datagram (the tail of a message), so a duty cycle's
 * burst of one queue pair is several runs (a 64 KiB write at MTU 1500 is a run of 44 and one of
 * 3), and each used to cost a {@code sendmsg} of its own. Fills the runs in order, up to
 * {@link #MAX_RUNS}; builds the {@code mmsghdr} vector. Sending, and what a failure does, is
 * {@link NativeUdpSocket}'s. Sending thread only.
 */
final class GsoBatch {
    /** Runs per {@code sendmmsg} at most. */
    static final int MAX_RUNS = 8;

    private final GsoBurst[] runs = new GsoBurst[MAX_RUNS];
    private final MemorySegment vector;
    /** The run being filled; the runs before it are held, complete. */
    private int current;

    GsoBatch(int family) {
        for (int i = 0; i < MAX_RUNS; i++) {
            runs[i] = new GsoBurst(family);
        }
        vector = Arena.ofAuto().allocate(Libc.MMSGHDR_SIZE * MAX_RUNS, 8);
    }

    /** The run being filled. */
    GsoBurst current() {
        return runs[current];
    }

    /**
     * Ends the run being filled (it holds datagrams and another cannot join) and starts the next
     * one; false when every run is taken (the batch must leave first) or the current one is empty.
     */
    boolean advance() {
        if (runs[current].count() == 0 || current == MAX_RUNS - 1) {
            return false;
        }
        current++;
        return true;
    }

    /** Runs held (the last possibly still open). */
    int runs() {
        return runs[current].count() > 0 ? current + 1 : current;
    }

    /** Held run {@code index}. */
    GsoBurst run(int index) {
        return runs[index];
    }

    /** The {@code mmsghdr} vector of runs {@code from} to {@code from + n - 1}: its address. */
    long vector(int from, int n) {
        for (int i = 0; i < n; i++) {
            runs[from + i].messageInto(vector, i * Libc.MMSGHDR_SIZE);
            vector.set(java.lang.foreign.ValueLayout.JAVA_INT, i * Libc.MMSGHDR_SIZE + Libc.MSGHDR_SIZE, 0);
        }
        return vector.address();
    }

    /** Forgets every run (sent or lost). */
    void clear() {
        for (int i = 0; i <= current; i++) {
            runs[i].clear();
        }
        current = 0;
    }
}
