package io.slime4j.soft;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * An {@link IdleWait} over native sockets (the UDP wire's native backend): one epoll set holding
 * the ports' descriptors and an eventfd, waited on with {@code epoll_pwait2} (a nanosecond
 * timeout, so timers keep their resolution); {@link #wake} writes the eventfd. Bound through the
 * Foreign Function and Memory API like the wire's own libc calls; Linux on x86_64 and aarch64.
 * Nothing is allocated per wait: the event array, timeout and counter live in this object's arena.
 */
final class EpollWait extends IdleWait {
    private static final int EPOLLIN = 0x1;
    private static final int EPOLL_CTL_ADD = 1;
    private static final int CLOEXEC = 0x80000;
    private static final int EFD_NONBLOCK = 0x800;
    private static final int MAX_EVENTS = 8;
    /** struct epoll_event is packed on x86_64 (12 bytes), naturally aligned elsewhere (16). */
    private static final boolean PACKED = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT).contains("64")
            && !System.getProperty("os.arch", "").toLowerCase(Locale.ROOT).contains("aarch64");
    private static final long EVENT_SIZE = PACKED ? 12 : 16;
    private static final long DATA_OFFSET = PACKED ? 4 : 8;
    private static final long WAKE_TAG = -1;

    private static final MethodHandle EPOLL_CREATE1;
    private static final MethodHandle EPOLL_CTL;
    private static final MethodHandle EPOLL_PWAIT2;
    private static final MethodHandle EVENTFD;
    private static final MethodHandle READ;
    private static final MethodHandle WRITE;
    private static final MethodHandle CLOSE;

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        ValueLayout.OfInt i = ValueLayout.JAVA_INT;
        ValueLayout.OfLong l = ValueLayout.JAVA_LONG;
        var p = ValueLayout.ADDRESS;
        EPOLL_CREATE1 = linker.downcallHandle(libc.findOrThrow("epoll_create1"), FunctionDescriptor.of(i, i));
        EPOLL_CTL = linker.downcallHandle(libc.findOrThrow("epoll_ctl"), FunctionDescriptor.of(i, i, i, i, p));
        EPOLL_PWAIT2 = linker.downcallHandle(libc.findOrThrow("epoll_pwait2"), FunctionDescriptor.of(i, i, p, i, p, p));
        EVENTFD = linker.downcallHandle(libc.findOrThrow("eventfd"), FunctionDescriptor.of(i, i, i));
        READ = linker.downcallHandle(libc.findOrThrow("read"), FunctionDescriptor.of(l, i, p, l));
        WRITE = linker.downcallHandle(libc.findOrThrow("write"), FunctionDescriptor.of(l, i, p, l));
        CLOSE = linker.downcallHandle(libc.findOrThrow("close"), FunctionDescriptor.of(i, i));
    }

    private final Arena arena = Arena.ofShared();
    private final int epfd;
    private final int eventFd;
    private final MemorySegment events;
    private final MemorySegment timeout;
    private final MemorySegment drain;
    private final MemorySegment one;
    private boolean closed; // guarded by this: wake never writes to a closed (maybe reused) descriptor

    /** An epoll set over {@code fds} (readable) and a new eventfd. */
    EpollWait(int[] fds) {
        try {
            epfd = (int) EPOLL_CREATE1.invokeExact(CLOEXEC);
            if (epfd < 0) {
                throw new IllegalStateException("epoll_create1 failed");
            }
            eventFd = (int) EVENTFD.invokeExact(0, EFD_NONBLOCK | CLOEXEC);
            if (eventFd < 0) {
                int ignored = (int) CLOSE.invokeExact(epfd);
                throw new IllegalStateException("eventfd failed");
            }
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        } catch (Throwable t) {
            arena.close();
            throw new IllegalStateException(t);
        }
        events = arena.allocate(EVENT_SIZE * MAX_EVENTS, 8);
        timeout = arena.allocate(16, 8);
        drain = arena.allocate(8, 8);
        one = arena.allocate(8, 8);
        one.set(ValueLayout.JAVA_LONG, 0, 1);
        add(eventFd, WAKE_TAG);
        for (int fd : fds) {
            add(fd, fd);
        }
    }

    private void add(int fd, long tag) {
        MemorySegment ev = arena.allocate(EVENT_SIZE, 8);
        ev.set(ValueLayout.JAVA_INT, 0, EPOLLIN);
        ev.set(ValueLayout.JAVA_LONG_UNALIGNED, DATA_OFFSET, tag);
        try {
            if ((int) EPOLL_CTL.invokeExact(epfd, EPOLL_CTL_ADD, fd, ev) != 0) {
                close();
                throw new IllegalStateException("epoll_ctl ADD of descriptor " + fd + " failed");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    boolean await(long timeoutNanos) {
        return poll(timeoutNanos) != 0; // an error (EINTR, closing) counts as woken: the next cycle finds out
    }

    /** One {@code epoll_pwait2} with a zero timeout: whether any socket (or the eventfd) is readable. */
    @Override
    boolean readyNow() {
        return poll(0) != 0;
    }

    /** Waits up to {@code timeoutNanos}; the number of ready descriptors, -1 on an error (EINTR, closing). */
    private int poll(long timeoutNanos) {
        timeout.set(ValueLayout.JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
        timeout.set(ValueLayout.JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
        try {
            int n = (int) EPOLL_PWAIT2.invokeExact(epfd, events, MAX_EVENTS, timeout, MemorySegment.NULL);
            for (int k = 0; k < n; k++) {
                if (events.get(ValueLayout.JAVA_LONG_UNALIGNED, k * EVENT_SIZE + DATA_OFFSET) == WAKE_TAG) {
                    long ignored = (long) READ.invokeExact(eventFd, drain, 8L); // reset the counter
                }
            }
            return n;
        } catch (Throwable t) {
            return -1; // EINTR or a closing port: the next cycle finds out
        }
    }

    @Override
    synchronized void wake() {
        if (!closed) {
            try {
                long ignored = (long) WRITE.invokeExact(eventFd, one, 8L);
            } catch (Throwable t) {
                // the counter cannot overflow from single increments; nothing else can fail here
            }
        }
    }

    @Override
    boolean wakesOnArrival() {
        return true;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            int a = (int) CLOSE.invokeExact(eventFd);
            int b = (int) CLOSE.invokeExact(epfd);
        } catch (Throwable t) {
            // nothing to do
        }
        arena.close();
    }
}
