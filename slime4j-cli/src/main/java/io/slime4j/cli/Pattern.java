package io.slime4j.cli;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The data {@code perf --verify} moves: the byte at offset {@code o} of a region is a function of
 * a seed and {@code o} alone, so the receiving side can check every byte where it landed without
 * a copy of the source. Each result row uses its own seed, so bytes left over from an earlier row
 * do not pass.
 */
final class Pattern {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Pattern() {}

    /** The 8 pattern bytes at offsets {@code 8w .. 8w+7} (little-endian). */
    static long word(long seed, long w) {
        long z = seed * 0x9E3779B97F4A7C15L + (w + 1) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The pattern byte at {@code offset}. */
    static byte at(long seed, long offset) {
        return (byte) (word(seed, offset >>> 3) >>> ((offset & 7) * 8));
    }

    /** Writes the pattern into {@code [from, to)} of {@code s}. */
    static void fill(MemorySegment s, long from, long to, long seed) {
        long o = from;
        for (; o < to && (o & 7) != 0; o++) {
            s.set(ValueLayout.JAVA_BYTE, o, at(seed, o));
        }
        for (; o + 8 <= to; o += 8) {
            s.set(LONG, o, word(seed, o >>> 3));
        }
        for (; o < to; o++) {
            s.set(ValueLayout.JAVA_BYTE, o, at(seed, o));
        }
    }

    /** The first offset in {@code [from, to)} whose byte is not the pattern's, or -1. */
    static long firstMismatch(MemorySegment s, long from, long to, long seed) {
        long o = from;
        for (; o < to && (o & 7) != 0; o++) {
            if (s.get(ValueLayout.JAVA_BYTE, o) != at(seed, o)) {
                return o;
            }
        }
        for (; o + 8 <= to; o += 8) {
            if (s.get(LONG, o) != word(seed, o >>> 3)) {
                for (long b = o; ; b++) {
                    if (s.get(ValueLayout.JAVA_BYTE, b) != at(seed, b)) {
                        return b;
                    }
                }
            }
        }
        for (; o < to; o++) {
            if (s.get(ValueLayout.JAVA_BYTE, o) != at(seed, o)) {
                return o;
            }
        }
        return -1;
    }
}
