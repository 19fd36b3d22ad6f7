package io.slime4j.conformance;

import static org.assertj.core.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Deterministic byte patterns: byte {@code p} of a pattern is a function of a seed and of the
 * position {@code p} alone, so any slice of it can be checked on its own. Buffers that must receive
 * a pattern are first filled with its complement, so that every byte left unwritten differs from
 * what was expected, whatever the size.
 */
final class Patterns {
    private static final ValueLayout.OfLong LE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int CHUNK = 1 << 20;

    private Patterns() {}

    /** The 8 pattern bytes at positions {@code 8 * index .. 8 * index + 7}, little-endian. */
    static long word(long seed, long index) {
        long z = seed * 0x9E37_79B9_7F4A_7C15L + index * 0xD1B5_4A32_D192_ED03L + 0x632B_E59B_D9B4_E019L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /** The pattern byte at {@code position}. */
    static byte at(long seed, long position) {
        return (byte) (word(seed, position >>> 3) >>> ((position & 7) << 3));
    }

    /** Fills {@code segment} with the pattern: byte {@code i} is {@code at(seed, i)}. */
    static void fill(MemorySegment segment, long seed) {
        fill(segment, seed, 0, false);
    }

    /** Fills {@code segment} with the complement of the pattern (the "poison" for a target). */
    static void fillComplement(MemorySegment segment, long seed) {
        fill(segment, seed, 0, true);
    }

    /**
     * Asserts that {@code segment[offset, offset + length)} holds the pattern at the same
     * positions, i.e. byte {@code offset + i} is {@code at(seed, offset + i)}.
     */
    static void assertPattern(MemorySegment segment, long offset, long length, long seed, String what) {
        assertPattern(segment, offset, length, seed, offset, what);
    }

    /**
     * Asserts that {@code segment[offset, offset + length)} holds the pattern starting at position
     * {@code origin}: byte {@code offset + i} is {@code at(seed, origin + i)}. Used when data was
     * moved from one offset to another.
     */
    static void assertPattern(MemorySegment segment, long offset, long length, long seed, long origin, String what) {
        check(segment, offset, length, seed, origin, false, what);
    }

    /** Asserts that {@code segment[offset, offset + length)} still holds the complement filled in before. */
    static void assertComplement(MemorySegment segment, long offset, long length, long seed, String what) {
        check(segment, offset, length, seed, offset, true, what);
    }

    /** Whether {@code segment[offset, offset + length)} holds the pattern at the same positions. */
    static boolean matches(MemorySegment segment, long offset, long length, long seed) {
        return mismatch(segment, offset, length, seed, offset, false) < 0;
    }

    /** Asserts that {@code segment[offset, offset + length)} is all zero. */
    static void assertZero(MemorySegment segment, long offset, long length, String what) {
        MemorySegment zeros = MemorySegment.ofArray(new byte[(int) Math.min(length, CHUNK)]);
        for (long done = 0; done < length; ) {
            long n = Math.min(CHUNK, length - done);
            long m = MemorySegment.mismatch(zeros, 0, n, segment, offset + done, offset + done + n);
            if (m >= 0) {
                fail("%s: byte %d is 0x%02x, expected 0 (untouched)", what, offset + done + m,
                        segment.get(ValueLayout.JAVA_BYTE, offset + done + m) & 0xFF);
            }
            done += n;
        }
    }

    private static void check(MemorySegment segment, long offset, long length, long seed, long origin,
                              boolean complement, String what) {
        long m = mismatch(segment, offset, length, seed, origin, complement);
        if (m >= 0) {
            byte expected = at(seed, origin + m);
            if (complement) {
                expected = (byte) ~expected;
            }
            fail("%s: %d of %d bytes checked match, then byte %d (of the segment) is 0x%02x, expected 0x%02x%s",
                    what, m, length, offset + m, segment.get(ValueLayout.JAVA_BYTE, offset + m) & 0xFF,
                    expected & 0xFF, complement ? " (left untouched)" : "");
        }
    }

    /** Index (relative to {@code offset}) of the first byte that differs, or -1. */
    private static long mismatch(MemorySegment segment, long offset, long length, long seed, long origin,
                                 boolean complement) {
        byte[] expected = new byte[(int) Math.min(length, CHUNK)];
        MemorySegment expectedSegment = MemorySegment.ofArray(expected);
        for (long done = 0; done < length; ) {
            int n = (int) Math.min(CHUNK, length - done);
            fill(expectedSegment.asSlice(0, n), seed, origin + done, complement);
            long m = MemorySegment.mismatch(expectedSegment, 0, n, segment, offset + done, offset + done + n);
            if (m >= 0) {
                return done + m;
            }
            done += n;
        }
        return -1;
    }

    /** Byte {@code i} of {@code segment} becomes {@code at(seed, origin + i)} (complemented if asked). */
    private static void fill(MemorySegment segment, long seed, long origin, boolean complement) {
        long length = segment.byteSize();
        long i = 0;
        for (; i < length && ((origin + i) & 7) != 0; i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, patternByte(seed, origin + i, complement));
        }
        for (; i + 8 <= length; i += 8) {
            long w = word(seed, (origin + i) >>> 3);
            segment.set(LE_LONG, i, complement ? ~w : w);
        }
        for (; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, patternByte(seed, origin + i, complement));
        }
    }

    private static byte patternByte(long seed, long position, boolean complement) {
        byte b = at(seed, position);
        return complement ? (byte) ~b : b;
    }
}
