package io.slime4j.conformance;

import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import io.slime4j.verbs.VerbsDevice;

/**
 * How the conformance suites get shm devices: the one place to re-point when the suite is split.
 * Devices of one JVM reach each other through their shared files like devices of two processes do.
 */
final class ShmFixture {
    private ShmFixture() {}

    static VerbsDevice open(String name) {
        return ShmDevice.open(ShmConfig.builder().name(name).build());
    }

    /** A well-formed shm address where nothing answers: this process has no descriptor that high. */
    static String unreachableAddress() {
        return "shm:" + ProcessHandle.current().pid() + ":999999:1";
    }
}
