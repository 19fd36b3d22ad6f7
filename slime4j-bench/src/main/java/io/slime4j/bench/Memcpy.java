package io.slime4j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The physical limit: {@link MemorySegment#copy} between two native segments of the machine, one
 * thread, per transfer size, best of three rounds. Two forms: one buffer copied again and again
 * (64 KiB and 1 MiB stay in cache, 16 MiB goes to memory), and the same copies cycling through
 * {@code window} buffers, the working set the one-sided transfers of that size use
 * ({@link CompareOptions#window}: about 16 MiB of sources and 16 MiB of targets), so a transfer
 * row can be compared with a copy that touches the same amount of memory.
 */
final class Memcpy {
    private Memcpy() {}

    /** MB/s of copying {@code size} bytes again and again, about {@code bytes} in all per round. */
    static double bandwidth(int size, long bytes) {
        return bandwidth(size, bytes, 1);
    }

    /** MB/s of copying {@code size} bytes, buffer {@code i % window} each time, about {@code bytes} per round. */
    static double bandwidth(int size, long bytes, int window) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate((long) size * window, 4096).fill((byte) 1);
            MemorySegment dst = arena.allocate((long) size * window, 4096).fill((byte) 0);
            long n = Math.max(16, bytes / size);
            copy(src, dst, size, window, Math.max(4, n / 10));
            double best = 0;
            for (int round = 0; round < 3; round++) {
                long start = System.nanoTime();
                copy(src, dst, size, window, n);
                best = Math.max(best, (double) size * n / ((System.nanoTime() - start) / 1e3));
            }
            return best;
        }
    }

    private static void copy(MemorySegment src, MemorySegment dst, int size, int window, long n) {
        for (long i = 0; i < n; i++) {
            long at = (i % window) * size;
            MemorySegment.copy(src, at, dst, at, size);
        }
    }
}
