package io.slime4j.conformance.nativeudp;

import io.slime4j.conformance.SignalingAndQueueDepthConformance;

/** {@link SignalingAndQueueDepthConformance} on the UDP wire with the native backend. */
class NativeUdpSignalingAndQueueDepthTest extends SignalingAndQueueDepthConformance {
    NativeUdpSignalingAndQueueDepthTest() {
        super(new NativeUdpFixture());
    }
}
