package io.slime4j.shm;

import java.lang.foreign.MemorySegment;

/**
 * A device this device's queue pairs are connected to, in this process or another one on the
 * host: its mapped device file (doorbell, queue-pair directory, closed flag), and whether it is
 * still alive: a closed flag it sets itself, and for another process a {@code pidfd} that becomes
 * readable the moment the process dies (however it dies, SIGKILL included).
 */
final class PeerDevice {
    /** How often a live peer process is re-checked, at most. */
    private static final long LIVENESS_CHECK_NANOS = 1_000_000;

    final String address;
    final int pid;
    final MemorySegment file;
    /** The peer device object when it lives in this process, else null. */
    final ShmDevice local;
    private final int pidfd;
    private long checkedAt;
    private volatile boolean dead;

    private PeerDevice(String address, int pid, MemorySegment file, ShmDevice local, int pidfd) {
        this.address = address;
        this.pid = pid;
        this.file = file;
        this.local = local;
        this.pidfd = pidfd;
    }

    /**
     * Maps the device at {@code address} ({@code shm:PID:FD:INODE}).
     *
     * @throws ShmException if it cannot be reached
     */
    static PeerDevice attach(String address, PeerMappings mappings) {
        ShmAddress a = ShmAddress.parse(address);
        MemorySegment file = mappings.map(a.pid(), a.fd(), a.inode());
        if (Layout.getVolatile(file, Layout.DEV_MAGIC) != Layout.MAGIC) {
            throw new ShmException(address + " is not an shm device file");
        }
        int me = ShmNative.pid();
        ShmDevice local = null;
        int pidfd = -1;
        if (a.pid() == me) {
            local = ShmDevice.localDevice(file.get(java.lang.foreign.ValueLayout.JAVA_LONG, Layout.DEV_ID));
        } else {
            pidfd = ShmNative.pidfdOpen(a.pid());
            if (pidfd < 0) {
                throw new ShmException("pidfd_open(" + a.pid() + ") failed, errno " + -pidfd + ": the peer is gone");
            }
        }
        return new PeerDevice(address, a.pid(), file, local, pidfd);
    }

    /** Whether the peer device is still open and its process alive (checked at most every millisecond). */
    boolean alive(long now) {
        if (dead) {
            return false;
        }
        if (Layout.getIntVolatile(file, Layout.DEV_CLOSED) != 0) {
            dead = true;
        } else if (pidfd >= 0 && now - checkedAt >= LIVENESS_CHECK_NANOS) {
            checkedAt = now;
            if (ShmNative.exited(pidfd)) {
                dead = true;
            }
        }
        return !dead;
    }

    /** Rings the peer's doorbell, marking none of its queue pairs ready (it wakes an agent that may sleep). */
    void ring() {
        Doorbell.ring(file);
    }

    /** Marks the peer's queue pair {@code qpn} ready and rings the peer's doorbell. */
    void ring(int qpn) {
        Doorbell.ring(file, qpn);
    }

    void close() {
        if (pidfd >= 0) {
            ShmNative.closeFd(pidfd);
        }
    }
}
