package io.slime4j.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

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

    /**
     * Copies the entry's bytes {@code [from, from + length)} into {@code dst} at {@code dstOffset}.
     * Every copy here works on offsets into whole segments, not on slices: a request allocates none.
     */
    void read(MemorySegment entry, long from, MemorySegment dst, long dstOffset, long length) {
        transfer(entry, from, dst, dstOffset, length, false);
    }

    /** Copies {@code length} bytes of {@code src} at {@code srcOffset} into the entry's bytes from {@code to} on. */
    void write(MemorySegment src, long srcOffset, long length, MemorySegment entry, long to) {
        transfer(entry, to, src, srcOffset, length, true);
    }

    private void transfer(MemorySegment entry, long start, MemorySegment local, long localOffset, long length,
                          boolean toPeer) {
        long remaining = length;
        long done = 0;
        long skip = start;
        int n = entry.get(ValueLayout.JAVA_SHORT, Layout.E_NUM_SGE);
        for (int i = 0; i < n && remaining > 0; i++) {
            long sge = Layout.E_SGES + i * Layout.SGE_SIZE;
            long len = entry.get(ValueLayout.JAVA_LONG, sge + Layout.S_LEN);
            if (skip >= len) {
                skip -= len;
                continue;
            }
            long piece = Math.min(len - skip, remaining);
            copy(entry, sge, skip, local, localOffset + done, piece, toPeer);
            done += piece;
            remaining -= piece;
            skip = 0;
        }
        if (remaining > 0) {
            throw new PeerAccessException("the requester's entries hold fewer bytes than the request");
        }
    }

    private void copy(MemorySegment entry, long sge, long offset, MemorySegment local, long localOffset, long len,
                      boolean toPeer) {
        Objects.checkFromIndexSize(localOffset, len, local.byteSize()); // process_vm_* gets a raw address
        long addr = entry.get(ValueLayout.JAVA_LONG, sge + Layout.S_ADDR) + offset;
        MemorySegment peerMemory = null; // null: only process_vm_* reaches it
        long peerOffset = 0;
        if (peer.local != null) {
            ShmRegion r = peer.local.regions().lookup(entry.get(ValueLayout.JAVA_LONG, sge + Layout.S_KEY));
            if (r == null || !r.contains(addr, len)) {
                throw new PeerAccessException("the requester's region was deregistered");
            }
            peerMemory = r.segment;
            peerOffset = addr - r.address();
        } else {
            int fd = entry.get(ValueLayout.JAVA_INT, sge + Layout.S_FD);
            if (fd >= 0) {
                peerMemory = mappedFile(entry, sge, fd);
                // the entry's words are the peer's: read once, checked, then used
                peerOffset = entry.get(ValueLayout.JAVA_LONG, sge + Layout.S_OFFSET) + offset;
                if (!DirectCopy.inBounds(peerOffset, len, 0, peerMemory.byteSize())) { // len checked above
                    throw new PeerAccessException("the requester's entry names bytes " + peerOffset + ".."
                            + (peerOffset + len) + " of a shared file of " + peerMemory.byteSize());
                }
            }
        }
        for (long at = 0; at < len; at += PIECE) {
            long piece = Math.min(PIECE, len - at);
            if (peerMemory == null) {
                crossMemory(toPeer, local, localOffset + at, piece, addr + at);
            } else if (toPeer) {
                MemorySegment.copy(local, localOffset + at, peerMemory, peerOffset + at, piece);
            } else {
                MemorySegment.copy(peerMemory, peerOffset + at, local, localOffset + at, piece);
            }
            if (piece == PIECE) {
                progress.run();
            }
        }
    }

    /** This device's mapping of the requester's shared file named by the entry's {@code sge} (the last one is kept). */
    private MemorySegment mappedFile(MemorySegment entry, long sge, int fd) {
        long inode = entry.get(ValueLayout.JAVA_LONG, sge + Layout.S_INODE);
        MemorySegment file = lastFile;
        if (inode != lastInode || file == null) {
            try {
                int mapped = mappings.size();
                file = mappings.map(peer.pid, fd, inode);
                if (mappings.size() != mapped) {
                    progress.run(); // mapping a large file took a while: that was work, not silence
                }
            } catch (ShmException | IndexOutOfBoundsException e) {
                throw new PeerAccessException("cannot map the requester's shared memory: " + e.getMessage());
            }
            lastInode = inode;
            lastFile = file; // mappings live until the device closes, after its agent stopped
        }
        return file;
    }

    private void crossMemory(boolean toPeer, MemorySegment local, long localOffset, long length, long remote) {
        long moved = 0;
        while (moved < length) {
            long r = ShmNative.crossMemory(toPeer, peer.pid, local.address() + localOffset + moved, remote + moved,
                    length - moved);
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
