package io.slime4j.conformance.udp;

import io.slime4j.conformance.AccessCheckConformance;

/** {@link AccessCheckConformance} on the UDP wire with the NIO backend. */
class UdpAccessCheckTest extends AccessCheckConformance {
    UdpAccessCheckTest() {
        super(new UdpFixture());
    }
}
