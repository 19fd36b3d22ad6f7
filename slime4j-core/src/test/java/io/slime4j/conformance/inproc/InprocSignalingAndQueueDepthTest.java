package io.slime4j.conformance.inproc;

import io.slime4j.conformance.SignalingAndQueueDepthConformance;

/** {@link SignalingAndQueueDepthConformance} on the in-process wire without faults. */
class InprocSignalingAndQueueDepthTest extends SignalingAndQueueDepthConformance {
    InprocSignalingAndQueueDepthTest() {
        super(new InprocFixture());
    }
}
