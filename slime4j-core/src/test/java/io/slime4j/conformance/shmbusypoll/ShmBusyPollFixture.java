package io.slime4j.conformance.shmbusypoll;

import io.slime4j.conformance.DeviceFixture;
import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import io.slime4j.verbs.VerbsDevice;

/**
 * Busy-polling shared-memory devices ({@link ShmConfig#busyPoll()}) of one JVM: their waiters spin
 * and run the devices' duty cycles themselves while the agents stay parked (docs/SHM.md).
 */
public class ShmBusyPollFixture implements DeviceFixture {
    @Override
    public VerbsDevice openDevice(String name) {
        return ShmDevice.open(ShmConfig.builder().name(name).busyPoll(true).build());
    }

    /** A waiter spins in awaitReady (runnable) instead of blocking. */
    @Override
    public boolean waitersLookRunnable() {
        return true;
    }

    /** A well-formed shm address where nothing answers: this process has no descriptor that high. */
    @Override
    public String unreachableAddress() {
        return "shm:" + ProcessHandle.current().pid() + ":999999:1";
    }
}
