package io.slime4j.shm;

import java.lang.foreign.MemorySegment;

/**
 * The wake-up of a device's progress agent: a futex word in the device file that anyone with work
 * for the device (its posting threads, its peers in this or other processes) increments and,
 * only when the agent said it is about to sleep, wakes. The agent spins first and sleeps with a
 * bound, so a lost wake-up costs at most that bound and never hangs. Ringing for a queue pair
 * first sets its bit in the device's ready mask ({@link ReadyMask}), so that the next duty cycle
 * runs it.
 */
final class Doorbell {
    private Doorbell() {}

    /**
     * Marks queue pair {@code qpn} of the device whose file is {@code device} ready, then rings. The
     * mark is an atomic read-modify-write after the caller's release of what it wrote for the queue
     * pair, so the duty cycle that takes the mark sees that.
     */
    static void ring(MemorySegment device, int qpn) {
        ReadyMask.mark(device, qpn);
        ring(device);
    }

    /** Rings the bell of the device whose file is {@code device}, marking no queue pair ready. */
    static void ring(MemorySegment device) {
        Layout.getAndAddInt(device, Layout.DEV_BELL, 1);
        if (Layout.getIntVolatile(device, Layout.DEV_SLEEPING) != 0) { // a Dekker pair with await()
            ShmNative.futexWake(device.address() + Layout.DEV_BELL);
        }
    }

    /** The bell's current value; take it before checking for work, then pass it to {@link #await}. */
    static int value(MemorySegment device) {
        return Layout.getIntVolatile(device, Layout.DEV_BELL);
    }

    /** Sleeps until the bell moves past {@code seen} or {@code nanos} pass. */
    static void await(MemorySegment device, int seen, long nanos) {
        Layout.setIntVolatile(device, Layout.DEV_SLEEPING, 1);
        try {
            if (Layout.getIntVolatile(device, Layout.DEV_BELL) == seen) {
                ShmNative.futexWait(device.address() + Layout.DEV_BELL, seen, nanos);
            }
        } finally {
            Layout.setIntVolatile(device, Layout.DEV_SLEEPING, 0);
        }
    }
}
