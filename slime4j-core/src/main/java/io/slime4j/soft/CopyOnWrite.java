package io.slime4j.soft;

import java.util.Arrays;

/**
 * Copies for the copy-on-write arrays the agent reads every cycle without a lock (a device's queue
 * pairs, an agent's devices): writers replace the whole array, so a reader sees one or the other.
 */
final class CopyOnWrite {
    private CopyOnWrite() {}

    /** A copy of {@code all} with {@code added} at the end. */
    static <T> T[] with(T[] all, T added) {
        T[] next = Arrays.copyOf(all, all.length + 1);
        next[all.length] = added;
        return next;
    }

    /** A copy of {@code all} without {@code gone} (compared by identity). */
    static <T> T[] without(T[] all, T gone) {
        T[] kept = Arrays.copyOf(all, all.length);
        int n = 0;
        for (T x : all) {
            if (x != gone) {
                kept[n++] = x;
            }
        }
        return Arrays.copyOf(kept, n);
    }
}
