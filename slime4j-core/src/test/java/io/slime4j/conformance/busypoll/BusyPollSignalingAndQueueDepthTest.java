package io.slime4j.conformance.busypoll;

import io.slime4j.conformance.SignalingAndQueueDepthConformance;

/** {@link SignalingAndQueueDepthConformance} on busy-polling devices (the waiting thread drives the device). */
class BusyPollSignalingAndQueueDepthTest extends SignalingAndQueueDepthConformance {
    BusyPollSignalingAndQueueDepthTest() {
        super(new BusyPollFixture());
    }
}
