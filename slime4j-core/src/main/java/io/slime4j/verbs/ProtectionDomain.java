package io.slime4j.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A protection domain: registers memory. A key is only valid on queue pairs of the same domain.
 */
public interface ProtectionDomain extends AutoCloseable {

    /**
     * Registers off-heap memory (any shared, global or automatic arena, or a mapped file) for
     * access with the given {@link AccessFlags}. Heap segments and thread-confined segments are
     * refused with an {@link IllegalArgumentException}: the device's progress thread must be able to
     * reach the memory. Lengths are {@code long}; regions larger than 4 GiB work.
     */
    MemoryRegion register(MemorySegment segment, int accessFlags);

    /** Deregisters every region of this domain. */
    @Override
    void close();
}
