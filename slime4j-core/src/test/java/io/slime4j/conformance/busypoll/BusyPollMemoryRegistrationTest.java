package io.slime4j.conformance.busypoll;

import io.slime4j.conformance.MemoryRegistrationConformance;

/** {@link MemoryRegistrationConformance} on busy-polling devices (the waiting thread drives the device). */
class BusyPollMemoryRegistrationTest extends MemoryRegistrationConformance {
    BusyPollMemoryRegistrationTest() {
        super(new BusyPollFixture());
    }
}
