package io.slime4j.conformance;

import io.slime4j.wire.udp.UdpConfig;
import org.junit.jupiter.api.BeforeAll;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conformance suite on the UDP wire with the native backend (libc sockets through the FFM
 * API, payloads gathered from registered memory). The build grants native access in surefire's
 * argLine, so the backend must be available there: this suite fails rather than skips without it.
 */
class NativeUdpConformanceTest extends UdpConformanceTest {

    @BeforeAll
    static void nativeBackendAvailable() {
        assertThat(UdpConfig.Backend.nativeUnavailability()).as("native udp backend unavailable").isNull();
    }

    @Override
    protected UdpConfig config() {
        return UdpConfig.builder().backend(UdpConfig.Backend.NATIVE).build();
    }
}
