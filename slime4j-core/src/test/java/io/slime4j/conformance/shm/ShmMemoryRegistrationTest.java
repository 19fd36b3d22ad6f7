package io.slime4j.conformance.shm;

import io.slime4j.conformance.MemoryRegistrationConformance;

/** {@link MemoryRegistrationConformance} on the shared-memory device. */
class ShmMemoryRegistrationTest extends MemoryRegistrationConformance {
    ShmMemoryRegistrationTest() {
        super(new ShmFixture());
    }
}
