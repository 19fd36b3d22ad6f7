package io.slime4j.conformance.nativeudp;

import io.slime4j.conformance.AccessCheckConformance;

/** {@link AccessCheckConformance} on the UDP wire with the native backend. */
class NativeUdpAccessCheckTest extends AccessCheckConformance {
    NativeUdpAccessCheckTest() {
        super(new NativeUdpFixture());
    }
}
