package io.slime4j.verbs;

import java.lang.foreign.MemorySegment;

/**
 * Registered memory. Remote peers address it by {@link #address()} plus an offset and present
 * {@link #remoteKey()}; local work requests present {@link #localKey()}. Keys carry random tag
 * bits so that they cannot be guessed. {@link #close()} deregisters: from its return on, any access
 * through either key fails with an access error and never touches the memory.
 */
public interface MemoryRegion extends AutoCloseable {

    /** The registered memory. */
    MemorySegment segment();

    /** The address peers use for byte 0 of the region (the segment's native address). */
    long address();

    /** Length in bytes. */
    long length();

    /** Key for local access in work requests. */
    long localKey();

    /** Key peers present for RDMA read, write and atomics. */
    long remoteKey();

    /** The {@link AccessFlags} granted at registration. */
    int accessFlags();

    /** Whether the region is still registered. */
    boolean isRegistered();

    /** Deregisters the region; idempotent. */
    @Override
    void close();
}
