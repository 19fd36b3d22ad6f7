package io.slime4j.crossprocess;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A position-dependent byte pattern both processes can compute: the byte at position {@code p}
 * is byte {@code p % 8} of the little-endian word {@code mix(seed, p / 8)}. A range copied from
 * position {@code p} of a filled region therefore matches the pattern at {@code p} and nowhere
 * else (with overwhelming probability), so misplaced, stale and missing bytes are all caught.
 */
final class Pattern {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Pattern() {
    }

    /** Fills {@code segment} (a multiple of 8 bytes) with the pattern of {@code seed} from position 0. */
    static void fill(MemorySegment segment, long seed) {
        long words = segment.byteSize() >>> 3;
        for (long k = 0; k < words; k++) {
            segment.set(WORD, k << 3, mix(seed, k));
        }
    }

    /**
     * The first index in {@code [0, length)} where {@code actual[offset + i]} differs from
     * {@code expected[patternOffset + i]}, or -1.
     */
    static long mismatch(MemorySegment actual, long offset, long length, MemorySegment expected, long patternOffset) {
        return actual.asSlice(offset, length).mismatch(expected.asSlice(patternOffset, length));
    }

    private static long mix(long seed, long k) {
        long z = seed * 0x9E3779B97F4A7C15L + k * 0xBF58476D1CE4E5B9L + 0x94D049BB133111EBL;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
