package io.slime4j.conformance.busypoll;

import io.slime4j.conformance.AccessCheckConformance;

/** {@link AccessCheckConformance} on busy-polling devices (the waiting thread drives the device). */
class BusyPollAccessCheckTest extends AccessCheckConformance {
    BusyPollAccessCheckTest() {
        super(new BusyPollFixture());
    }
}
