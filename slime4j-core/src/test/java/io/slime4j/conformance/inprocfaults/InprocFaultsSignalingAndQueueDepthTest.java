package io.slime4j.conformance.inprocfaults;

import io.slime4j.conformance.SignalingAndQueueDepthConformance;

/** {@link SignalingAndQueueDepthConformance} on the in-process wire with injected loss, duplication and reordering. */
class InprocFaultsSignalingAndQueueDepthTest extends SignalingAndQueueDepthConformance {
    InprocFaultsSignalingAndQueueDepthTest() {
        super(new InprocFaultsFixture());
    }
}
