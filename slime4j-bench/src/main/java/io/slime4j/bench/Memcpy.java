package io.slime4j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The physical limit: {@link MemorySegment#copy} between two native segments of the machine, per
 * transfer size (64 KiB stays in cache, 16 MiB goes to memory), best of three rounds.
 */
final class Memcpy {
    private Memcpy() {}

    /** MB/s of copying {@code size} bytes again and again, about {@code bytes} in all per round. */
    static double bandwidth(int size, long bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(size, 4096).fill((byte) 1);
            MemorySegment dst = arena.allocate(size, 4096);
            long n = Math.max(16, bytes / size);
            copy(src, dst, Math.max(4, n / 10));
            double best = 0;
            for (int round = 0; round < 3; round++) {
                long start = System.nanoTime();
                copy(src, dst, n);
                best = Math.max(best, (double) size * n / ((System.nanoTime() - start) / 1e3));
            }
            return best;
        }
    }

    private static void copy(MemorySegment src, MemorySegment dst, long n) {
        for (long i = 0; i < n; i++) {
            MemorySegment.copy(src, 0, dst, 0, src.byteSize());
        }
    }
}
