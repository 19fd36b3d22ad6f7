package io.slime4j.shm;

import java.lang.foreign.MemorySegment;

/**
 * The wake-up of a device's progress agent: a futex word in the device file that anyone with work
 * for the device (its posting threads, its peers in this or other processes) increments and,
 * only when the agent said it is about to sleep, wakes. The agent spins first and sleeps with a
 * bound, so a lost wake-up costs at most that bound and never hangs.
 */
final class Doorbell {
    private Doorbell() {}

    /** Rings the bell of the device whose file is {@code device}. */
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
