package io.slime4j.conformance.busypoll;

import io.slime4j.conformance.udp.UdpFixture;
import io.slime4j.soft.SoftConfig;
import io.slime4j.wire.udp.UdpConfig;

/**
 * Soft-engine devices that busy-poll ({@link SoftConfig#busySpin()}) on the UDP wire with the native
 * backend: a thread that waits on one of their completion queues runs the device's duty cycles
 * itself while the device's agent stands aside, so every suite also checks that the verbs contract
 * holds whichever thread drives the device.
 */
public final class BusyPollFixture extends UdpFixture {

    public BusyPollFixture() {
        super(UdpConfig.builder().backend(UdpConfig.Backend.NATIVE).build());
    }

    @Override
    public boolean waitersLookRunnable() {
        return true;
    }

    @Override
    protected SoftConfig.Builder deviceConfig(String name) {
        return super.deviceConfig(name).busySpin(true);
    }
}
