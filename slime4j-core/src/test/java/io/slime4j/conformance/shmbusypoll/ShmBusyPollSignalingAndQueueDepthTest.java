package io.slime4j.conformance.shmbusypoll;

import io.slime4j.conformance.SignalingAndQueueDepthConformance;

/** {@link SignalingAndQueueDepthConformance} on the shared-memory device with busy polling. */
class ShmBusyPollSignalingAndQueueDepthTest extends SignalingAndQueueDepthConformance {
    ShmBusyPollSignalingAndQueueDepthTest() {
        super(new ShmBusyPollFixture());
    }
}
