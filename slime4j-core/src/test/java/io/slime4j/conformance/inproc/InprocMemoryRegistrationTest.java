package io.slime4j.conformance.inproc;

import io.slime4j.conformance.MemoryRegistrationConformance;

/** {@link MemoryRegistrationConformance} on the in-process wire without faults. */
class InprocMemoryRegistrationTest extends MemoryRegistrationConformance {
    InprocMemoryRegistrationTest() {
        super(new InprocFixture());
    }
}
