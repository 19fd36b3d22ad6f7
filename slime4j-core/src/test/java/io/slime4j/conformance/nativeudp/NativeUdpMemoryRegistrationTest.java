package io.slime4j.conformance.nativeudp;

import io.slime4j.conformance.MemoryRegistrationConformance;

/** {@link MemoryRegistrationConformance} on the UDP wire with the native backend. */
class NativeUdpMemoryRegistrationTest extends MemoryRegistrationConformance {
    NativeUdpMemoryRegistrationTest() {
        super(new NativeUdpFixture());
    }
}
