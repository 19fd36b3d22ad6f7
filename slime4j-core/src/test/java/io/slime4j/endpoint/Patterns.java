package io.slime4j.endpoint;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Deterministic byte patterns: each (seed, index) gives its own bytes, so a misplaced byte shows. */
final class Patterns {
    private Patterns() {}

    static byte at(long seed, long i) {
        long x = seed * 0x9E3779B97F4A7C15L + i * 0xBF58476D1CE4E5B9L;
        x ^= x >>> 31;
        x *= 0x94D049BB133111EBL;
        return (byte) (x ^ (x >>> 29));
    }

    static void fill(MemorySegment seg, long offset, long length, long seed) {
        long i = 0;
        // 8 bytes at a time where possible
        for (; i + 8 <= length; i += 8) {
            long v = 0;
            for (int k = 0; k < 8; k++) {
                v |= (at(seed, i + k) & 0xFFL) << (8 * k);
            }
            seg.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + i, v);
        }
        for (; i < length; i++) {
            seg.set(ValueLayout.JAVA_BYTE, offset + i, at(seed, i));
        }
    }

    /** The index of the first byte that differs from the pattern, or -1. */
    static long mismatch(MemorySegment seg, long offset, long length, long seed) {
        long i = 0;
        for (; i + 8 <= length; i += 8) {
            long v = seg.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + i);
            for (int k = 0; k < 8; k++) {
                if ((byte) (v >>> (8 * k)) != at(seed, i + k)) {
                    return i + k;
                }
            }
        }
        for (; i < length; i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, offset + i) != at(seed, i)) {
                return i;
            }
        }
        return -1;
    }
}
