package io.slime4j.conformance.udp;

import io.slime4j.conformance.MemoryRegistrationConformance;

/** {@link MemoryRegistrationConformance} on the UDP wire with the NIO backend. */
class UdpMemoryRegistrationTest extends MemoryRegistrationConformance {
    UdpMemoryRegistrationTest() {
        super(new UdpFixture());
    }
}
