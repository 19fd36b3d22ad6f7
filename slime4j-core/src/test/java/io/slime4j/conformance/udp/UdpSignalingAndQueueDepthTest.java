package io.slime4j.conformance.udp;

import io.slime4j.conformance.SignalingAndQueueDepthConformance;

/** {@link SignalingAndQueueDepthConformance} on the UDP wire with the NIO backend. */
class UdpSignalingAndQueueDepthTest extends SignalingAndQueueDepthConformance {
    UdpSignalingAndQueueDepthTest() {
        super(new UdpFixture());
    }
}
