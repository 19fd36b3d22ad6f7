package io.slime4j.wire.udp;

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
import java.util.Locale;

/**
 * The few libc socket calls of the native UDP backend, bound through the Foreign Function and Memory
 * API (no JNI library of our own). Linux on x86_64 and aarch64 only: the constants and struct
 * layouts below are those of both (LP64, generic socket ABI). {@link #unavailability()} says why
 * the backend cannot run here: another OS or CPU, or no native access for this module (run with
 * {@code --enable-native-access=io.slime4j.core}, or {@code =ALL-UNNAMED} on the class path).
 *
 * <p>Every call captures {@code errno} into a segment the caller passes first, so that a failure
 * can be told from "would block" without a second call.
 */
final class Libc {
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int IPPROTO_IPV6 = 41;
    static final int IPV6_V6ONLY = 26;
    static final int MSG_TRUNC = 0x20;
    static final int EAGAIN = 11;
    static final int EINTR = 4;
    static final int ENOBUFS = 105;

    static final int SOCKADDR_SIZE = 28; // sockaddr_in6, the larger of the two families used

    /** struct iovec { void *iov_base; size_t iov_len; } */
    static final StructLayout IOVEC = MemoryLayout.structLayout(ValueLayout.JAVA_LONG.withName("base"),
            ValueLayout.JAVA_LONG.withName("len"));
    /** struct msghdr of LP64 Linux: name, namelen (+4 padding), iov, iovlen, control, controllen, flags (+4). */
    static final long MSGHDR_SIZE = 56;
    static final long MSG_NAME = 0;
    static final long MSG_NAMELEN = 8;
    static final long MSG_IOV = 16;
    static final long MSG_IOVLEN = 24;
    static final long MSG_CONTROL = 32;
    static final long MSG_CONTROLLEN = 40;
    static final long MSG_FLAGS = 48;

    private static final Throwable UNAVAILABLE;
    private static final VarHandle ERRNO;
    private static final long CAPTURE_SIZE;
    static final MethodHandle SOCKET;
    static final MethodHandle SETSOCKOPT;
    static final MethodHandle GETSOCKOPT;
    static final MethodHandle BIND;
    static final MethodHandle GETSOCKNAME;
    static final MethodHandle SENDTO;
    static final MethodHandle SENDMSG;
    static final MethodHandle RECVFROM;
    static final MethodHandle CLOSE;

    static {
        Throwable why = null;
        MethodHandle socket = null;
        MethodHandle setsockopt = null;
        MethodHandle getsockopt = null;
        MethodHandle bind = null;
        MethodHandle getsockname = null;
        MethodHandle sendto = null;
        MethodHandle sendmsg = null;
        MethodHandle recvfrom = null;
        MethodHandle close = null;
        VarHandle errno = null;
        long captureSize = 0;
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux")) {
            why = new UnsupportedOperationException("the native udp backend needs Linux, this is " + os);
        } else if (!arch.equals("amd64") && !arch.equals("x86_64") && !arch.equals("aarch64")) {
            why = new UnsupportedOperationException("the native udp backend needs x86_64 or aarch64, this is " + arch);
        } else if (!Libc.class.getModule().isNativeAccessEnabled()) {
            why = new UnsupportedOperationException("no native access for " + moduleName()
                    + "; run java with --enable-native-access=" + moduleName());
        } else {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                Linker.Option errnoOption = Linker.Option.captureCallState("errno");
                StructLayout capture = Linker.Option.captureStateLayout();
                errno = capture.varHandle(MemoryLayout.PathElement.groupElement("errno"));
                captureSize = capture.byteSize();
                ValueLayout.OfInt i = ValueLayout.JAVA_INT;
                ValueLayout.OfLong l = ValueLayout.JAVA_LONG;
                var p = ValueLayout.ADDRESS;
                socket = linker.downcallHandle(libc.findOrThrow("socket"), FunctionDescriptor.of(i, i, i, i),
                        errnoOption);
                setsockopt = linker.downcallHandle(libc.findOrThrow("setsockopt"),
                        FunctionDescriptor.of(i, i, i, i, p, i), errnoOption);
                getsockopt = linker.downcallHandle(libc.findOrThrow("getsockopt"),
                        FunctionDescriptor.of(i, i, i, i, p, p), errnoOption);
                bind = linker.downcallHandle(libc.findOrThrow("bind"), FunctionDescriptor.of(i, i, p, i), errnoOption);
                getsockname = linker.downcallHandle(libc.findOrThrow("getsockname"), FunctionDescriptor.of(i, i, p, p),
                        errnoOption);
                // raw addresses as longs on the data path, so that no segment is made per datagram
                sendto = linker.downcallHandle(libc.findOrThrow("sendto"), FunctionDescriptor.of(l, i, l, l, i, l, i),
                        errnoOption);
                sendmsg = linker.downcallHandle(libc.findOrThrow("sendmsg"), FunctionDescriptor.of(l, i, l, i),
                        errnoOption);
                recvfrom = linker.downcallHandle(libc.findOrThrow("recvfrom"),
                        FunctionDescriptor.of(l, i, l, l, i, l, l), errnoOption);
                close = linker.downcallHandle(libc.findOrThrow("close"), FunctionDescriptor.of(i, i), errnoOption);
            } catch (RuntimeException | LinkageError e) {
                why = e;
            }
        }
        UNAVAILABLE = why;
        SOCKET = socket;
        SETSOCKOPT = setsockopt;
        GETSOCKOPT = getsockopt;
        BIND = bind;
        GETSOCKNAME = getsockname;
        SENDTO = sendto;
        SENDMSG = sendmsg;
        RECVFROM = recvfrom;
        CLOSE = close;
        ERRNO = errno;
        CAPTURE_SIZE = captureSize;
    }

    private Libc() {
    }

    private static String moduleName() {
        Module m = Libc.class.getModule();
        return m.isNamed() ? m.getName() : "ALL-UNNAMED";
    }

    /** Why the native backend cannot run here, or null when it can. */
    static Throwable unavailability() {
        return UNAVAILABLE;
    }

    /** A segment for the captured call state (errno), from {@code arena}. */
    static MemorySegment captureSegment(Arena arena) {
        return arena.allocate(CAPTURE_SIZE, 8);
    }

    /** The errno a call captured into {@code capture}. */
    static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }
}
