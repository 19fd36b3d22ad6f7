package io.slime4j.conformance.shm;

import io.slime4j.conformance.SignalingAndQueueDepthConformance;

/** {@link SignalingAndQueueDepthConformance} on the shared-memory device. */
class ShmSignalingAndQueueDepthTest extends SignalingAndQueueDepthConformance {
    ShmSignalingAndQueueDepthTest() {
        super(new ShmFixture());
    }
}
