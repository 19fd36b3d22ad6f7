package io.slime4j.conformance.udp;

import io.slime4j.conformance.SendReceiveConformance;

/** {@link SendReceiveConformance} on the UDP wire with the NIO backend. */
class UdpSendReceiveTest extends SendReceiveConformance {
    UdpSendReceiveTest() {
        super(new UdpFixture());
    }
}
