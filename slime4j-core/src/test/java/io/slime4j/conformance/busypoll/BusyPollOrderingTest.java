package io.slime4j.conformance.busypoll;

import io.slime4j.conformance.OrderingConformance;

/** {@link OrderingConformance} on busy-polling devices (the waiting thread drives the device). */
class BusyPollOrderingTest extends OrderingConformance {
    BusyPollOrderingTest() {
        super(new BusyPollFixture());
    }
}
