package io.slime4j.shm;

import java.lang.foreign.MemorySegment;

/**
 * How a responder reaches the requester's memory named by the scatter/gather entries of a ring
 * entry: in this process through the requester's own registered segment (the JVM checks it is
 * still alive); in another process through this device's mapping of the requester's memfd when
 * the entry lies in {@link SharedMemory} (one {@code memcpy}), else with
 * {@code process_vm_readv}/{@code writev} (one kernel copy; needs the same user and a ptrace
 * scope that allows it). A failure is a {@link PeerAccessException}.
 */
final class PeerMemory {
    /** Largest piece copied at once, so the responder can report progress between pieces. */
    static final long PIECE = 4L << 20;

    private final PeerDevice peer;
    private final PeerMappings mappings;
    private final Runnable progress;
    /** The peer file mapped last (inode and whole mapping): most requests name the same one, no lookup. */
    private long lastInode = -1;
    private MemorySegment lastFile;

    PeerMemory(PeerDevice peer, PeerMappings mappings, Runnable progress) {
        this.peer = peer;
        this.mappings = mappings;
        this.progress = progress;
    }

    /** Copies the entry's bytes {@code [from, from + dst.byteSize())} into {@code dst}. */
    void read(MemorySegment entry, long from, MemorySegment dst) {
        transfer(entry, from, dst, false);
    }

    /** Copies {@code src} into the entry's bytes {@code [to, to + src.byteSize())}. */
    void write(MemorySegment src, MemorySegment entry, long to) {
        transfer(entry, to, src, true);
    }

    private void transfer(MemorySegment entry, long start, MemorySegment local, boolean toPeer) {
        long remaining = local.byteSize();
        long done = 0;
        long skip = start;
        int n = entry.get(java.lang.foreign.ValueLayout.JAVA_SHORT, Layout.E_NUM_SGE);
        for (int i = 0; i < n && remaining > 0; i++) {
            long sge = Layout.E_SGES + i * Layout.SGE_SIZE;
            long len = entry.get(java.lang.foreign.ValueLayout.JAVA_LONG, sge + Layout.S_LEN);
            if (skip >= len) {
                skip -= len;
                continue;
            }
            long piece = Math.min(len - skip, remaining);
            copy(entry, sge, skip, local.asSlice(done, piece), toPeer);
            done += piece;
            remaining -= piece;
            skip = 0;
        }
        if (remaining > 0) {
            throw new PeerAccessException("the requester's entries hold fewer bytes than the request");
        }
    }

    private void copy(MemorySegment entry, long sge, long offset, MemorySegment local, boolean toPeer) {
        long addr = entry.get(java.lang.foreign.ValueLayout.JAVA_LONG, sge + Layout.S_ADDR) + offset;
        long len = local.byteSize();
        MemorySegment peerMemory = peerSegment(entry, sge, addr, len);
        for (long at = 0; at < len; at += PIECE) {
            long piece = Math.min(PIECE, len - at);
            if (peerMemory != null) {
                if (toPeer) {
                    MemorySegment.copy(local, at, peerMemory, at, piece);
                } else {
                    MemorySegment.copy(peerMemory, at, local, at, piece);
                }
            } else {
                crossMemory(toPeer, local.asSlice(at, piece), addr + at);
            }
            if (piece == PIECE) {
                progress.run();
            }
        }
    }

    /** The peer's memory as a segment of this process, or null when only process_vm_* reaches it. */
    private MemorySegment peerSegment(MemorySegment entry, long sge, long addr, long len) {
        if (peer.local != null) {
            ShmRegion r = peer.local.regions().lookup(entry.get(java.lang.foreign.ValueLayout.JAVA_LONG, sge + Layout.S_KEY));
            if (r == null || !r.contains(addr, len)) {
                throw new PeerAccessException("the requester's region was deregistered");
            }
            return r.slice(addr, len);
        }
        int fd = entry.get(java.lang.foreign.ValueLayout.JAVA_INT, sge + Layout.S_FD);
        if (fd < 0) {
            return null;
        }
        long inode = entry.get(java.lang.foreign.ValueLayout.JAVA_LONG, sge + Layout.S_INODE);
        long base = entry.get(java.lang.foreign.ValueLayout.JAVA_LONG, sge + Layout.S_OFFSET)
                + (addr - entry.get(java.lang.foreign.ValueLayout.JAVA_LONG, sge + Layout.S_ADDR));
        try {
            MemorySegment file = lastFile;
            if (inode != lastInode || file == null) {
                int mapped = mappings.size();
                file = mappings.map(peer.pid, fd, inode);
                if (mappings.size() != mapped) {
                    progress.run(); // mapping a large file took a while: that was work, not silence
                }
                lastInode = inode;
                lastFile = file; // mappings live until the device closes, after its agent stopped
            }
            return file.asSlice(base, len);
        } catch (ShmException | IndexOutOfBoundsException e) {
            throw new PeerAccessException("cannot map the requester's shared memory: " + e.getMessage());
        }
    }

    private void crossMemory(boolean toPeer, MemorySegment local, long remote) {
        long moved = 0;
        while (moved < local.byteSize()) {
            long r = ShmNative.crossMemory(toPeer, peer.pid, local.asSlice(moved), remote + moved, local.byteSize() - moved);
            if (r <= 0) {
                throw new PeerAccessException("process_vm_" + (toPeer ? "writev" : "readv") + " to process " + peer.pid
                        + " failed, errno " + -r + (r == -ShmNative.EPERM
                        ? ": not permitted (another user, or Yama ptrace_scope forbids it; use SharedMemory.allocate)" : ""));
            }
            moved += r;
        }
    }

    /** The requester's memory could not be reached. */
    static final class PeerAccessException extends RuntimeException {
        PeerAccessException(String message) {
            super(message, null, false, false);
        }
    }
}
