package io.slime4j.conformance;

import io.slime4j.verbs.MemoryRegion;
import java.lang.foreign.MemorySegment;

/**
 * A target region on {@code b} filled with a pattern, and a local buffer on {@code a} filled with
 * its complement (so that any byte written into the target would change it). The access-check and
 * atomic tests aim requests at it that must fail, then check it is untouched.
 */
final class Target {
    static final long SIZE = 64 << 10;
    final MemoryRegion region;
    final MemoryRegion local;
    private final MemorySegment memory;
    private final long seed;

    Target(QpPair p, int accessFlags, long seed) {
        this.seed = seed;
        this.region = p.b.region(SIZE, accessFlags);
        this.memory = region.segment();
        this.local = p.a.region(SIZE);
        Patterns.fill(memory, seed);
        Patterns.fillComplement(local.segment(), seed);
    }

    void assertUntouched(String what) {
        Patterns.assertPattern(memory, 0, SIZE, seed, what);
    }
}
