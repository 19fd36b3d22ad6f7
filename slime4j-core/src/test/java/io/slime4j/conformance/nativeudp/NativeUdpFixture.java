package io.slime4j.conformance.nativeudp;

import io.slime4j.conformance.udp.UdpFixture;
import io.slime4j.wire.udp.UdpConfig;

/**
 * Soft-engine devices on the UDP wire with the native backend (libc sockets through the FFM API,
 * payloads gathered from registered memory). The build grants native access in surefire's argLine,
 * so the backend must be available there: every test fails rather than skips without it.
 */
public final class NativeUdpFixture extends UdpFixture {

    public NativeUdpFixture() {
        super(nativeConfig());
    }

    /** A default device's waiter blocks in epoll on the device's sockets: a native call, RUNNABLE to the JVM. */
    @Override
    public boolean waitersLookRunnable() {
        return true;
    }

    private static UdpConfig nativeConfig() {
        Throwable unavailable = UdpConfig.Backend.nativeUnavailability();
        if (unavailable != null) {
            throw new AssertionError("native udp backend unavailable", unavailable);
        }
        return UdpConfig.builder().backend(UdpConfig.Backend.NATIVE).build();
    }
}
