package io.slime4j.shm;

import io.slime4j.verbs.QpConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A queue pair's shared file (a memfd): the ring of requests it sends, published by a release of
 * its tail, and the words its peer answers with (requests done, the failed one and why, RNR NAKs,
 * progress). Also a view of a peer's such file, mapped by the peer side.
 */
final class QpFile {
    /** The largest ring a queue pair makes: its send queue depth at most {@link QpConfig#MAX_DEPTH}. */
    static final int MAX_CAPACITY = QpConfig.MAX_DEPTH;

    final MemorySegment segment;
    final int fd;
    final long inode;
    final int capacity;
    final long entrySize;
    private final Arena arena;
    /** Each ring entry's slice, made at its first use and kept: a request allocates no segment. */
    private final MemorySegment[] entries;

    private QpFile(MemorySegment segment, int fd, long inode, Arena arena) {
        this.segment = segment;
        this.fd = fd;
        this.inode = inode;
        this.arena = arena;
        this.capacity = segment.get(ValueLayout.JAVA_INT, Layout.QP_CAPACITY);
        this.entrySize = segment.get(ValueLayout.JAVA_INT, Layout.QP_ENTRY_SIZE);
        // a peer's file says its own ring: refuse one no queue pair makes, or that does not fit the
        // mapping, before sizing anything by it
        int maxSge = segment.get(ValueLayout.JAVA_INT, Layout.QP_MAX_SGE);
        if (capacity <= 0 || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1 || maxSge < 1
                || maxSge > QpConfig.MAX_SGE || entrySize != Layout.entrySize(maxSge)
                || Layout.QP_RING + capacity * entrySize > segment.byteSize()) {
            throw new ShmException("queue-pair file of " + segment.byteSize() + " bytes holds no ring of "
                    + capacity + " entries of " + entrySize + " bytes (" + maxSge + " scatter/gather entries)");
        }
        this.entries = new MemorySegment[capacity];
    }

    /** Creates the file of a new queue pair of this process. */
    static QpFile create(int capacity, int maxSge, long token, long deviceId, int pd) {
        Arena arena = Arena.ofShared();
        MemorySegment s = SharedMemory.allocate(Layout.qpFileSize(capacity, maxSge), arena);
        SharedMemory.Allocation a = SharedMemory.find(s.address(), s.byteSize());
        s.set(ValueLayout.JAVA_INT, Layout.QP_PID, ShmNative.pid());
        s.set(ValueLayout.JAVA_INT, Layout.QP_MAX_SGE, maxSge);
        s.set(ValueLayout.JAVA_INT, Layout.QP_CAPACITY, capacity);
        s.set(ValueLayout.JAVA_INT, Layout.QP_ENTRY_SIZE, (int) Layout.entrySize(maxSge));
        s.set(ValueLayout.JAVA_LONG, Layout.QP_TOKEN, token);
        s.set(ValueLayout.JAVA_LONG, Layout.QP_DEVICE, deviceId);
        s.set(ValueLayout.JAVA_INT, Layout.QP_PD, pd);
        Layout.setRelease(s, Layout.QP_NAK_SEQ, -1);
        Layout.setVolatile(s, Layout.QP_MAGIC, Layout.MAGIC);
        return new QpFile(s, a.fd(), a.inode(), arena);
    }

    /** A view of a peer's file mapped into this process. */
    static QpFile view(MemorySegment mapped) {
        if (Layout.getVolatile(mapped, Layout.QP_MAGIC) != Layout.MAGIC) {
            throw new ShmException("not an shm queue-pair file");
        }
        return new QpFile(mapped, -1, 0, null);
    }

    long token() {
        return segment.get(ValueLayout.JAVA_LONG, Layout.QP_TOKEN);
    }

    /** The ring entry for sequence number {@code seq}. */
    MemorySegment entry(long seq) {
        int i = (int) (seq & (capacity - 1));
        MemorySegment e = entries[i];
        if (e == null) { // two threads may both slice it: either slice is the same view
            e = entries[i] = segment.asSlice(Layout.QP_RING + i * entrySize, entrySize);
        }
        return e;
    }

    /** The protection domain (its id in the owner's process) of the queue pair whose file this is. */
    int pd() {
        return segment.get(ValueLayout.JAVA_INT, Layout.QP_PD);
    }

    /** Records the token of the queue pair this one is connected to (the owner, when it moves to RTR). */
    void connectedTo(long remoteToken) {
        Layout.setRelease(segment, Layout.QP_REMOTE_TOKEN, remoteToken);
    }

    /** The token of the queue pair the owner is connected to, 0 before it is. */
    long remoteToken() {
        return Layout.getAcquire(segment, Layout.QP_REMOTE_TOKEN);
    }

    void markFailed() {
        Layout.setIntVolatile(segment, Layout.QP_STATE, 1);
    }

    boolean failed() {
        return Layout.getIntVolatile(segment, Layout.QP_STATE) != 0;
    }

    /** Unmaps and closes this process's own file (peers keep their mappings until they close). */
    void close() {
        if (arena != null) {
            markFailed();
            arena.close();
        }
    }
}
