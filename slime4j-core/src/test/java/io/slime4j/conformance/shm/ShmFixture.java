package io.slime4j.conformance.shm;

import io.slime4j.conformance.DeviceFixture;
import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import io.slime4j.verbs.VerbsDevice;

/**
 * Shared-memory devices ({@link ShmDevice}) of one JVM: they reach each other through their memfd
 * files exactly as devices of two processes do (docs/SHM.md).
 */
public class ShmFixture implements DeviceFixture {
    @Override
    public VerbsDevice openDevice(String name) {
        return ShmDevice.open(ShmConfig.builder().name(name).build());
    }

    /** A well-formed shm address where nothing answers: this process has no descriptor that high. */
    @Override
    public String unreachableAddress() {
        return "shm:" + ProcessHandle.current().pid() + ":999999:1";
    }
}
