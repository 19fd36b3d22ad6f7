package io.slime4j.conformance.shmbusypoll;

import io.slime4j.conformance.MemoryRegistrationConformance;

/** {@link MemoryRegistrationConformance} on the shared-memory device with busy polling. */
class ShmBusyPollMemoryRegistrationTest extends MemoryRegistrationConformance {
    ShmBusyPollMemoryRegistrationTest() {
        super(new ShmBusyPollFixture());
    }
}
