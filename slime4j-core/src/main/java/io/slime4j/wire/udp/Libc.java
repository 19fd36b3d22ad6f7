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
 * <p>The control-path calls capture {@code errno} into a segment the caller passes first. The
 * data-path calls ({@code sendto}, {@code sendmsg}, {@code recvfrom}, {@code recvmsg}) do not: the
 * JDK's capture slices that segment on every call, an allocation only escape analysis removes, and
 * it does not whenever the JIT declines to inline the call chain. After a data-path call fails,
 * {@link #errno()} reads the thread's errno through {@code __errno_location} instead. The JVM could
 * in principle overwrite errno between the two calls (it may run code of its own on the way back
 * from native code); the worst that does is misfile one failure as "would block" or as an error,
 * both of which the engine survives (a resend, a counted error).
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
    static final int MSG_PEEK = 0x2;
    static final int MSG_TRUNC = 0x20;
    static final int EAGAIN = 11;
    static final int EINTR = 4;
    static final int ENOBUFS = 105;
    static final int EINVAL = 22;
    static final int EIO = 5;
    static final int EMSGSIZE = 90;
    static final int ENOPROTOOPT = 92;
    static final int EOPNOTSUPP = 95;
    static final int IPPROTO_IP = 0;
    static final int IP_MTU_DISCOVER = 10;
    static final int IP_MTU = 14;
    static final int IP_PMTUDISC_DO = 2;
    static final int IPV6_MTU_DISCOVER = 23;
    static final int IPV6_MTU = 24;
    static final int IPV6_PMTUDISC_DO = 2;
    /** SOL_UDP and its segmentation offload options (linux/udp.h). */
    static final int SOL_UDP = 17;
    static final int UDP_SEGMENT = 103;
    static final int UDP_GRO = 104;
    /** struct cmsghdr of LP64 Linux: len (size_t), level, type; data 8-aligned after it. */
    static final long CMSG_HEADER = 16;
    /** CMSG_SPACE(sizeof(uint16_t)): the UDP_SEGMENT control message. */
    static final long CMSG_SPACE_SEGMENT = 24;

    static final int SOCKADDR_SIZE = 28; // sockaddr_in6, the larger of the two families used

    /** struct iovec { void *iov_base; size_t iov_len; } */
    static final StructLayout IOVEC = MemoryLayout.structLayout(ValueLayout.JAVA_LONG.withName("base"),
            ValueLayout.JAVA_LONG.withName("len"));
    /** struct msghdr of LP64 Linux: name, namelen (+4 padding), iov, iovlen, control, controllen, flags (+4). */
    static final long MSGHDR_SIZE = 56;
    /** struct mmsghdr: a msghdr and the unsigned int msg_len, padded to 8. */
    static final long MMSGHDR_SIZE = 64;
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
    static final MethodHandle SENDMMSG;
    static final MethodHandle RECVFROM;
    static final MethodHandle RECVMSG;
    static final MethodHandle CLOSE;
    private static final MethodHandle ERRNO_LOCATION;
    private static final MemorySegment EVERYTHING;

    static {
        Throwable why = null;
        MethodHandle socket = null;
        MethodHandle setsockopt = null;
        MethodHandle getsockopt = null;
        MethodHandle bind = null;
        MethodHandle getsockname = null;
        MethodHandle sendto = null;
        MethodHandle sendmsg = null;
        MethodHandle sendmmsg = null;
        MethodHandle recvfrom = null;
        MethodHandle recvmsg = null;
        MethodHandle close = null;
        MethodHandle errnoLocation = null;
        MemorySegment everything = null;
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
                sendto = linker.downcallHandle(libc.findOrThrow("sendto"), FunctionDescriptor.of(l, i, l, l, i, l, i));
                sendmsg = linker.downcallHandle(libc.findOrThrow("sendmsg"), FunctionDescriptor.of(l, i, l, i));
                sendmmsg = linker.downcallHandle(libc.findOrThrow("sendmmsg"), FunctionDescriptor.of(i, i, l, i, i));
                recvfrom = linker.downcallHandle(libc.findOrThrow("recvfrom"),
                        FunctionDescriptor.of(l, i, l, l, i, l, l));
                recvmsg = linker.downcallHandle(libc.findOrThrow("recvmsg"), FunctionDescriptor.of(l, i, l, i));
                errnoLocation = linker.downcallHandle(libc.findOrThrow("__errno_location"), FunctionDescriptor.of(l));
                everything = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
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
        SENDMMSG = sendmmsg;
        RECVFROM = recvfrom;
        RECVMSG = recvmsg;
        CLOSE = close;
        ERRNO_LOCATION = errnoLocation;
        EVERYTHING = everything;
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

    /** This thread's errno now: right after a data-path call failed, its error. */
    static int errno() {
        try {
            long location = (long) ERRNO_LOCATION.invokeExact();
            return EVERYTHING.get(ValueLayout.JAVA_INT, location);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The errno a call captured into {@code capture}. */
    static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }
}
