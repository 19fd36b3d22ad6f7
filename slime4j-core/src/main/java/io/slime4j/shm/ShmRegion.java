package io.slime4j.shm;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A region registered with an {@link ShmDevice}. Every access takes a use ({@link #acquire}) and
 * gives it back; {@link #close()} invalidates the key at once and then waits (bounded) until no
 * use is left, so that once it returns nothing touches the memory through the key again. A region
 * in {@link SharedMemory} is also exported to peers ({@link ExportTable}), whose requesters copy
 * to and from it themselves: {@code close()} withdraws the export first and waits for their
 * copies too.
 */
final class ShmRegion implements MemoryRegion {
    /** How long deregistration waits for accesses in progress. */
    static final long DEREGISTER_WAIT_NANOS = 5_000_000_000L;

    final ShmProtectionDomain pd;
    final MemorySegment segment;
    final long key;
    final int access;
    /** The memfd allocation the region lies in, or null for private memory. */
    final SharedMemory.Allocation shared;
    private final AtomicInteger uses = new AtomicInteger();
    private volatile boolean registered = true;
    /** The slot in the device's export table, or -1 when not exported. */
    private volatile int exportSlot = -1;

    ShmRegion(ShmProtectionDomain pd, MemorySegment segment, long key, int access) {
        this.pd = pd;
        this.segment = segment;
        this.key = key;
        this.access = access;
        this.shared = SharedMemory.find(segment.address(), segment.byteSize());
    }

    /** Takes a use; false if the region is no longer registered. */
    boolean acquire() {
        uses.incrementAndGet();
        if (!registered) {
            uses.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Exports the region to peers' requesters if it lies in shared memory (at registration). */
    void export() {
        exportSlot = pd.device().exports().export(this);
    }

    void release() {
        uses.decrementAndGet();
    }

    /** Whether {@code [address, address + length)} lies inside the region (no overflow). */
    boolean contains(long address, long length) {
        long base = segment.address();
        long size = segment.byteSize();
        return length >= 0 && length <= size && address - base >= 0 && address - base <= size - length
                && Long.compareUnsigned(address, base) >= 0;
    }

    /** The part of the segment at {@code [address, address + length)}; check {@link #contains} first. */
    MemorySegment slice(long address, long length) {
        return segment.asSlice(address - segment.address(), length);
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long address() {
        return segment.address();
    }

    @Override
    public long length() {
        return segment.byteSize();
    }

    @Override
    public long localKey() {
        return key;
    }

    @Override
    public long remoteKey() {
        return key;
    }

    @Override
    public int accessFlags() {
        return access;
    }

    @Override
    public boolean isRegistered() {
        return registered;
    }

    @Override
    public void close() {
        if (!registered) {
            return;
        }
        registered = false;
        pd.device().regions().remove(this);
        int slot = exportSlot;
        ExportTable exports = pd.device().exports();
        if (slot >= 0) {
            exports.revoke(this, slot);
        }
        pd.forget(this);
        long deadline = System.nanoTime() + DEREGISTER_WAIT_NANOS;
        while ((uses.get() > 0 || (slot >= 0 && exports.copies(slot) > 0)) && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(50_000);
        }
    }

    @Override
    public String toString() {
        return "MemoryRegion{address=0x" + Long.toHexString(address()) + ", length=" + length() + ", access="
                + AccessFlags.toString(access) + (shared != null ? ", shared" : "") + ", registered=" + registered + "}";
    }
}
