package io.slime4j.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The Linux system calls the shared-memory engine needs, through the FFM API: memfd_create,
 * ftruncate, mmap, open, fstat, futex, pidfd_open, poll and process_vm_readv/writev. Every call
 * captures errno; failures come back as negative errno values (or an {@link ShmException}).
 * Linux on x86_64 or aarch64 only (the {@code struct stat} offsets and syscall numbers are per
 * architecture); {@link #unavailability()} says why the engine cannot run elsewhere.
 */
final class ShmNative {
    static final int O_RDWR = 2;
    static final int O_CLOEXEC = 0x80000;
    static final int MFD_CLOEXEC = 1;
    static final int PROT_RW = 3;
    static final int MAP_SHARED = 1;
    static final int MAP_POPULATE = 0x8000;
    static final int FUTEX_WAIT = 0;
    static final int FUTEX_WAKE = 1;
    static final int EAGAIN = 11;
    static final int EPERM = 1;
    static final int ESRCH = 3;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final boolean X86 = System.getProperty("os.arch").matches("amd64|x86_64");
    private static final boolean ARM = System.getProperty("os.arch").equals("aarch64");
    private static final long SYS_FUTEX = X86 ? 202 : 98;
    private static final long SYS_PIDFD_OPEN = 434;
    /** struct stat: size, st_ino, st_uid, st_size offsets (x86_64 / aarch64 generic). */
    private static final long STAT_SIZE = 144;
    private static final long ST_INO = 8;
    private static final long ST_UID = X86 ? 28 : 24;
    private static final long ST_SIZE = 48;

    private static final String UNAVAILABLE;
    /** futex without errno capture: the hot path allocates nothing (a failed wait is a spurious wake-up). */
    private static MethodHandle futex;
    private static final ThreadLocal<MemorySegment> TIMESPEC = ThreadLocal.withInitial(() -> Arena.global().allocate(16, 8));
    /** Per thread (the agents): the call state and a pollfd for {@link #exited}, never freed. */
    private static final ThreadLocal<MemorySegment> POLL_STATE = ThreadLocal.withInitial(
            () -> Arena.global().allocate((CALL_STATE.byteSize() + 7 & ~7L) + 8, 8));
    /** Per thread: errno capture and two iovecs for process_vm_*, so the copy path allocates nothing. */
    private static final ThreadLocal<MemorySegment> CROSS_STATE = ThreadLocal.withInitial(
            () -> Arena.global().allocate((CALL_STATE.byteSize() + 7 & ~7L) + 32, 8));
    private static MethodHandle memfdCreate, ftruncate, fallocate, mmap, munmap, open, close, fstat, syscall3, syscall6, poll,
            vmRead, vmWrite, getpid, geteuid;

    static {
        String why = null;
        if (!System.getProperty("os.name").equals("Linux") || !(X86 || ARM)) {
            why = "the shm engine needs Linux on x86_64 or aarch64, this is " + System.getProperty("os.name") + "/"
                    + System.getProperty("os.arch");
        } else {
            try {
                SymbolLookup libc = LINKER.defaultLookup();
                ValueLayout.OfInt i = ValueLayout.JAVA_INT;
                ValueLayout.OfLong l = ValueLayout.JAVA_LONG;
                ValueLayout a = ValueLayout.ADDRESS;
                memfdCreate = h(libc, "memfd_create", FunctionDescriptor.of(i, a, i));
                ftruncate = h(libc, "ftruncate", FunctionDescriptor.of(i, i, l));
                fallocate = h(libc, "fallocate", FunctionDescriptor.of(i, i, i, l, l));
                mmap = h(libc, "mmap", FunctionDescriptor.of(a, a, l, i, i, i, l));
                munmap = h(libc, "munmap", FunctionDescriptor.of(i, a, l));
                open = h(libc, "open", FunctionDescriptor.of(i, a, i));
                close = h(libc, "close", FunctionDescriptor.of(i, i));
                fstat = h(libc, "fstat", FunctionDescriptor.of(i, i, a));
                syscall3 = h(libc, "syscall", FunctionDescriptor.of(l, l, l, l, l));
                syscall6 = h(libc, "syscall", FunctionDescriptor.of(l, l, l, l, l, l, l, l));
                futex = LINKER.downcallHandle(libc.find("syscall").orElseThrow(),
                        FunctionDescriptor.of(l, l, l, l, l, l, l, l));
                poll = h(libc, "poll", FunctionDescriptor.of(i, a, l, i));
                vmRead = h(libc, "process_vm_readv", FunctionDescriptor.of(l, i, a, l, a, l, l));
                vmWrite = h(libc, "process_vm_writev", FunctionDescriptor.of(l, i, a, l, a, l, l));
                getpid = LINKER.downcallHandle(libc.find("getpid").orElseThrow(), FunctionDescriptor.of(i));
                geteuid = LINKER.downcallHandle(libc.find("geteuid").orElseThrow(), FunctionDescriptor.of(i));
            } catch (Throwable t) {
                why = "libc functions of the shm engine unavailable: " + t;
            }
        }
        UNAVAILABLE = why;
    }

    private ShmNative() {}

    private static MethodHandle h(SymbolLookup libc, String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(libc.find(name).orElseThrow(() -> new UnsatisfiedLinkError(name)), fd,
                Linker.Option.captureCallState("errno"));
    }

    /** Why the engine cannot run here, or null when it can. */
    static String unavailability() {
        return UNAVAILABLE;
    }

    static void requireAvailable() {
        if (UNAVAILABLE != null) {
            throw new ShmException(UNAVAILABLE);
        }
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    static int pid() {
        try {
            return (int) getpid.invokeExact();
        } catch (Throwable t) {
            throw new ShmException("getpid failed", t);
        }
    }

    static int euid() {
        try {
            return (int) geteuid.invokeExact();
        } catch (Throwable t) {
            throw new ShmException("geteuid failed", t);
        }
    }

    /**
     * memfd_create + ftruncate + fallocate: an anonymous shared file of {@code size} bytes whose
     * pages are reserved now (so that a full tmpfs is an exception here, never a SIGBUS on a later
     * write); returns the fd.
     */
    static int memfd(String name, long size) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            int fd = (int) memfdCreate.invokeExact(st, a.allocateFrom(name), MFD_CLOEXEC);
            if (fd < 0) {
                throw new ShmException("memfd_create failed, errno " + errno(st));
            }
            int r = (int) ftruncate.invokeExact(st, fd, size);
            if (r < 0) {
                int e = errno(st);
                closeFd(fd);
                throw new ShmException("ftruncate of a memfd to " + size + " bytes failed, errno " + e);
            }
            r = (int) fallocate.invokeExact(st, fd, 0, 0L, size);
            if (r < 0) {
                int e = errno(st);
                closeFd(fd);
                throw new ShmException("cannot reserve " + size + " bytes of shared memory (fallocate errno " + e
                        + (e == 28 ? ": no space left in the memfd's tmpfs" : "") + ")");
            }
            return fd;
        } catch (ShmException e) {
            throw e;
        } catch (Throwable t) {
            throw new ShmException("memfd_create failed", t);
        }
    }

    /** Maps {@code size} bytes of {@code fd} shared, read-write, page tables populated; returns the address. */
    static long map(int fd, long size) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            MemorySegment p = (MemorySegment) mmap.invokeExact(st, MemorySegment.NULL, size, PROT_RW,
                    MAP_SHARED | MAP_POPULATE, fd, 0L);
            if (p.address() == -1L) {
                throw new ShmException("mmap of " + size + " bytes failed, errno " + errno(st));
            }
            return p.address();
        } catch (ShmException e) {
            throw e;
        } catch (Throwable t) {
            throw new ShmException("mmap failed", t);
        }
    }

    static void unmap(long address, long size) {
        try (Arena a = Arena.ofConfined()) {
            int ignored = (int) munmap.invokeExact(a.allocate(CALL_STATE), MemorySegment.ofAddress(address), size);
        } catch (Throwable t) {
            throw new ShmException("munmap failed", t);
        }
    }

    /** open(path, O_RDWR|O_CLOEXEC); returns the fd or -errno. */
    static int openRw(String path) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            int fd = (int) open.invokeExact(st, a.allocateFrom(path), O_RDWR | O_CLOEXEC);
            return fd < 0 ? -errno(st) : fd;
        } catch (Throwable t) {
            throw new ShmException("open failed", t);
        }
    }

    static void closeFd(int fd) {
        try (Arena a = Arena.ofConfined()) {
            int ignored = (int) close.invokeExact(a.allocate(CALL_STATE), fd);
        } catch (Throwable t) {
            throw new ShmException("close failed", t);
        }
    }

    /** What {@code fstat} says about a file: inode, owner and size. */
    record Stat(long inode, int uid, long size) {}

    static Stat stat(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            MemorySegment buf = a.allocate(STAT_SIZE, 8);
            int r = (int) fstat.invokeExact(st, fd, buf);
            if (r < 0) {
                throw new ShmException("fstat failed, errno " + errno(st));
            }
            return new Stat(buf.get(ValueLayout.JAVA_LONG, ST_INO), buf.get(ValueLayout.JAVA_INT, ST_UID),
                    buf.get(ValueLayout.JAVA_LONG, ST_SIZE));
        } catch (ShmException e) {
            throw e;
        } catch (Throwable t) {
            throw new ShmException("fstat failed", t);
        }
    }

    /** futex(FUTEX_WAIT) on a shared word while it holds {@code expected}, for at most {@code nanos}. */
    static void futexWait(long address, int expected, long nanos) {
        MemorySegment ts = TIMESPEC.get();
        ts.set(ValueLayout.JAVA_LONG, 0, nanos / 1_000_000_000L);
        ts.set(ValueLayout.JAVA_LONG, 8, nanos % 1_000_000_000L);
        try {
            long ignored = (long) futex.invokeExact(SYS_FUTEX, address, (long) FUTEX_WAIT, (long) expected, ts.address(),
                    0L, 0L);
        } catch (Throwable t) {
            throw new ShmException("futex wait failed", t);
        }
    }

    /** futex(FUTEX_WAKE) of every waiter on a shared word. */
    static void futexWake(long address) {
        try {
            long ignored = (long) futex.invokeExact(SYS_FUTEX, address, (long) FUTEX_WAKE, (long) Integer.MAX_VALUE,
                    0L, 0L, 0L);
        } catch (Throwable t) {
            throw new ShmException("futex wake failed", t);
        }
    }

    /** pidfd_open(pid): a descriptor that becomes readable when the process exits; -errno on failure. */
    static int pidfdOpen(int pid) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            long r = (long) syscall3.invokeExact(st, SYS_PIDFD_OPEN, (long) pid, 0L, 0L);
            return r < 0 ? -errno(st) : (int) r;
        } catch (Throwable t) {
            throw new ShmException("pidfd_open failed", t);
        }
    }

    /** Whether the process behind a pidfd has exited (poll with a zero timeout). */
    static boolean exited(int pidfd) {
        MemorySegment st = POLL_STATE.get(); // allocation-free: the agent asks every millisecond while busy
        MemorySegment pfd = st.asSlice(CALL_STATE.byteSize() + 7 & ~7L, 8);
        try {
            pfd.set(ValueLayout.JAVA_INT, 0, pidfd);
            pfd.set(ValueLayout.JAVA_SHORT, 4, (short) 1); // POLLIN
            pfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
            int r = (int) poll.invokeExact(st, pfd, 1L, 0);
            return r > 0 && (pfd.get(ValueLayout.JAVA_SHORT, 6) & 1) != 0;
        } catch (Throwable t) {
            throw new ShmException("poll failed", t);
        }
    }

    /**
     * process_vm_readv / writev of one contiguous range between this process's address {@code local} and address
     * {@code remote} of process {@code pid}; returns the bytes moved or -errno.
     */
    static long crossMemory(boolean write, int pid, long local, long remote, long length) {
        MemorySegment st = CROSS_STATE.get();
        MemorySegment iov = st.asSlice(CALL_STATE.byteSize() + 7 & ~7L, 32);
        iov.set(ValueLayout.JAVA_LONG, 0, local);
        iov.set(ValueLayout.JAVA_LONG, 8, length);
        iov.set(ValueLayout.JAVA_LONG, 16, remote);
        iov.set(ValueLayout.JAVA_LONG, 24, length);
        try {
            long r = write
                    ? (long) vmWrite.invokeExact(st, pid, iov, 1L, iov.asSlice(16), 1L, 0L)
                    : (long) vmRead.invokeExact(st, pid, iov, 1L, iov.asSlice(16), 1L, 0L);
            return r < 0 ? -errno(st) : r;
        } catch (Throwable t) {
            throw new ShmException("process_vm_" + (write ? "writev" : "readv") + " failed", t);
        }
    }
}
