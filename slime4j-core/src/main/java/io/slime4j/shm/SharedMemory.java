package io.slime4j.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Memory that another process can map: {@link #allocate} creates an anonymous shared file with
 * {@code memfd_create}, maps it and hands it out as a {@link MemorySegment} of the caller's arena
 * (closing the arena unmaps it and closes the descriptor). Nothing is ever named in a file system:
 * the kernel frees the memory when the last descriptor and mapping are gone, so a crash leaves
 * nothing behind. A peer maps it by opening {@code /proc/PID/fd/FD} (see {@link PeerMappings}).
 *
 * <p>Regions registered over such memory are reached by peers in other processes with one
 * {@code memcpy} through their own mapping; any other memory is reached with
 * {@code process_vm_readv}/{@code writev} (see docs/SHM.md).
 */
public final class SharedMemory {
    /** One memfd allocation of this process: where it is mapped and how peers find it. */
    record Allocation(long address, long size, int fd, long inode) {
        boolean contains(long addr, long length) {
            return addr >= address && length >= 0 && addr - address <= size - length;
        }
    }

    private static final Map<Long, Allocation> ALLOCATIONS = new ConcurrentSkipListMap<>();

    private SharedMemory() {}

    /**
     * Allocates {@code size} bytes of zeroed, page-aligned memory that peers on this host can map,
     * freed when {@code arena} closes. Pass a shared or global arena to register it.
     */
    public static MemorySegment allocate(long size, Arena arena) {
        if (size <= 0) {
            throw new IllegalArgumentException("shared memory size must be positive, was " + size);
        }
        ShmNative.requireAvailable();
        int fd = ShmNative.memfd("slime4j", size);
        long address;
        long inode;
        try {
            inode = ShmNative.stat(fd).inode();
            address = ShmNative.map(fd, size);
        } catch (RuntimeException e) {
            ShmNative.closeFd(fd);
            throw e;
        }
        Allocation allocation = new Allocation(address, size, fd, inode);
        ALLOCATIONS.put(address, allocation);
        return MemorySegment.ofAddress(address).reinterpret(size, arena, s -> {
            ALLOCATIONS.remove(address);
            ShmNative.unmap(address, size);
            ShmNative.closeFd(fd);
        });
    }

    /** The allocation holding {@code [address, address + length)}, or null if it is private memory. */
    static Allocation find(long address, long length) {
        Map.Entry<Long, Allocation> e = ((ConcurrentSkipListMap<Long, Allocation>) ALLOCATIONS).floorEntry(address);
        if (e == null || !e.getValue().contains(address, length)) {
            return null;
        }
        return e.getValue();
    }

    /** Whether {@code segment} lies inside memory allocated by {@link #allocate}. */
    public static boolean isShared(MemorySegment segment) {
        return segment.isNative() && find(segment.address(), segment.byteSize()) != null;
    }
}
