package io.slime4j.shm;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * The files of peer processes this device has mapped, by process id and inode, each mapped once
 * and unmapped when the device closes. A file is opened through {@code /proc/PID/fd/FD} and mapped
 * only if its inode is the one the peer announced (a reused descriptor number is never mistaken for
 * it) and it belongs to this process's effective user: nothing of another user's is mapped.
 */
final class PeerMappings implements AutoCloseable {
    private record Key(int pid, long inode) {}

    private record Mapping(long address, long size) {}

    private final Map<Key, Mapping> mappings = new HashMap<>();
    private boolean closed;

    /**
     * Maps file {@code fd} of process {@code pid}, expected to have inode {@code inode}, whole.
     *
     * @throws ShmException if it cannot be opened, is another file or another user's
     */
    synchronized MemorySegment map(int pid, int fd, long inode) {
        if (closed) {
            throw new ShmException("device closed");
        }
        Key key = new Key(pid, inode);
        Mapping m = mappings.get(key);
        if (m == null) {
            m = open(pid, fd, inode);
            mappings.put(key, m);
        }
        return MemorySegment.ofAddress(m.address()).reinterpret(m.size());
    }

    private static Mapping open(int pid, int fd, long inode) {
        String path = "/proc/" + pid + "/fd/" + fd;
        int local = ShmNative.openRw(path);
        if (local < 0) {
            throw new ShmException("cannot open " + path + " (errno " + -local
                    + "): the peer process is gone or not this user's");
        }
        try {
            ShmNative.Stat st = ShmNative.stat(local);
            if (st.inode() != inode) {
                throw new ShmException(path + " is inode " + st.inode() + ", not the announced " + inode
                        + ": the peer's descriptor was closed and reused");
            }
            int me = ShmNative.euid();
            if (st.uid() != me) {
                throw new ShmException(path + " belongs to uid " + st.uid() + ", not to this process's uid " + me
                        + ": the shm engine maps nothing of another user's");
            }
            return new Mapping(ShmNative.map(local, st.size()), st.size());
        } finally {
            ShmNative.closeFd(local);
        }
    }

    /** How many files are mapped (grows when {@link #map} had to map a new one). */
    synchronized int size() {
        return mappings.size();
    }

    /** Unmaps everything. Only once no thread can touch the mappings any more. */
    @Override
    public synchronized void close() {
        closed = true;
        for (Mapping m : mappings.values()) {
            ShmNative.unmap(m.address(), m.size());
        }
        mappings.clear();
    }
}
