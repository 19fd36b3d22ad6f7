package io.slime4j.conformance.udp;

import io.slime4j.conformance.OrderingConformance;

/** {@link OrderingConformance} on the UDP wire with the NIO backend. */
class UdpOrderingTest extends OrderingConformance {
    UdpOrderingTest() {
        super(new UdpFixture());
    }
}
