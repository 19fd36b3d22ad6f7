package io.slime4j.conformance.shmbusypoll;

import io.slime4j.conformance.OrderingConformance;

/** {@link OrderingConformance} on the shared-memory device with busy polling. */
class ShmBusyPollOrderingTest extends OrderingConformance {
    ShmBusyPollOrderingTest() {
        super(new ShmBusyPollFixture());
    }
}
