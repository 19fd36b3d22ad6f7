package io.slime4j.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Where everything lives in the two kinds of shared file, and acquire/release access to their
 * words. A <b>device file</b> holds the device's identity, its doorbell (a futex word) and a
 * directory of its queue pairs; a <b>queue-pair file</b> holds the request ring the queue pair
 * produces into and the words its peer answers with. Words written by different sides sit on
 * different cache lines.
 */
final class Layout {
    static final long MAGIC = 0x534C_494D_4534_4A32L; // "SLIME4J2": the device file has the ready mask
    static final int MAX_QPS = 4096;

    // ---- device file
    static final long DEV_MAGIC = 0, DEV_PID = 8, DEV_UID = 12, DEV_ID = 16, DEV_CLOSED = 24;
    static final long DEV_BELL = 64, DEV_SLEEPING = 128;
    static final long DEV_DIR = 256, DIR_ENTRY = 32; // fd int, (pad), inode long, token long, size long
    static final long DEV_EXPORTS = DEV_DIR + MAX_QPS * DIR_ENTRY;
    /** Export table slots (a region's slot is its key's low bits; a taken slot means no export). */
    static final int EXPORTS = 1024;
    static final long X_SIZE = 128;
    /** Export entry: sequence (odd while the owner rewrites it), key, domain, access, the region's address and
     *  length in the owner's process, its memfd's inode, offset and descriptor; on the next cache line the count of
     *  copies peers run in it now. */
    static final long X_SEQ = 0, X_KEY = 8, X_PD = 16, X_ACCESS = 20, X_BASE = 24, X_LENGTH = 32, X_INODE = 40,
            X_OFFSET = 48, X_FD = 56, X_USES = 64;
    /** The ready mask: a bit per queue pair, set by whoever gives it work (its peer, its posting threads), taken by
     *  the device's duty cycle, which then runs only the queue pairs that have something to do. */
    static final long DEV_READY = DEV_EXPORTS + EXPORTS * X_SIZE;
    static final int READY_WORDS = MAX_QPS / 64;
    static final long DEV_SIZE = DEV_READY + READY_WORDS * 8L;

    // ---- queue-pair file: header written by the owner (requester), answers by the peer (responder)
    static final long QP_MAGIC = 0, QP_PID = 8, QP_MAX_SGE = 12, QP_CAPACITY = 16, QP_ENTRY_SIZE = 20,
            QP_TOKEN = 24, QP_DEVICE = 32, QP_PD = 40;
    static final long QP_REMOTE_TOKEN = 48; // owner: the token of the queue pair it is connected to (0: none yet)
    static final long QP_TAIL = 64; // owner: requests published
    static final long QP_DONE = 128; // peer: requests finished (the failed one included)
    static final long QP_NAK_SEQ = 192, QP_NAK_STATUS = 200; // peer: the failed request and its status
    static final long QP_RNR_NAKS = 256; // peer: RNR NAKs sent so far
    static final long QP_RETRY = 320; // owner: bumped to ask the peer to try the head request again
    static final long QP_PROGRESS = 384; // peer: heartbeat while it executes a long request
    static final long QP_STATE = 448; // owner: 0 live, 1 failed or closed (the peer stops consuming)
    /** peer: non-zero while its duty cycles run its side every cycle (no mark needed). A line of its own: it
     *  changes only when a stream starts or stops, so the requester's read of it after every publish hits its cache. */
    static final long QP_WATCHED = 512;
    static final long QP_RING = 576;

    // ---- ring entry
    static final long E_OPCODE = 0, E_FLAGS = 1, E_NUM_SGE = 2, E_IMM = 4, E_SEQ = 8, E_RADDR = 16, E_RKEY = 24,
            E_COMPARE = 32, E_SWAP = 40, E_LENGTH = 48, E_SGES = 64;
    static final long SGE_SIZE = 48; // address, length, key, inode, offset in the file, fd
    static final long S_ADDR = 0, S_LEN = 8, S_KEY = 16, S_INODE = 24, S_OFFSET = 32, S_FD = 40;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private Layout() {}

    static long entrySize(int maxSge) {
        return E_SGES + maxSge * SGE_SIZE;
    }

    static long qpFileSize(int capacity, int maxSge) {
        return QP_RING + capacity * entrySize(maxSge);
    }

    static long getAcquire(MemorySegment s, long offset) {
        return (long) LONG.getAcquire(s, offset);
    }

    static void setRelease(MemorySegment s, long offset, long value) {
        LONG.setRelease(s, offset, value);
    }

    static long getVolatile(MemorySegment s, long offset) {
        return (long) LONG.getVolatile(s, offset);
    }

    static void setVolatile(MemorySegment s, long offset, long value) {
        LONG.setVolatile(s, offset, value);
    }

    static int getIntVolatile(MemorySegment s, long offset) {
        return (int) INT.getVolatile(s, offset);
    }

    static void setIntVolatile(MemorySegment s, long offset, int value) {
        INT.setVolatile(s, offset, value);
    }

    static int getAndAddInt(MemorySegment s, long offset, int delta) {
        return (int) INT.getAndAdd(s, offset, delta);
    }

    static long getAndAddLong(MemorySegment s, long offset, long delta) {
        return (long) LONG.getAndAdd(s, offset, delta);
    }

    static long getAndBitwiseOr(MemorySegment s, long offset, long bits) {
        return (long) LONG.getAndBitwiseOr(s, offset, bits);
    }

    static long getAndSet(MemorySegment s, long offset, long value) {
        return (long) LONG.getAndSet(s, offset, value);
    }

    static long compareAndExchange(MemorySegment s, long offset, long expected, long value) {
        return (long) LONG.compareAndExchange(s, offset, expected, value);
    }
}
