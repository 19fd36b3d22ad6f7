package io.slime4j.conformance.inprocfaults;

import io.slime4j.conformance.MemoryRegistrationConformance;

/** {@link MemoryRegistrationConformance} on the in-process wire with injected loss, duplication and reordering. */
class InprocFaultsMemoryRegistrationTest extends MemoryRegistrationConformance {
    InprocFaultsMemoryRegistrationTest() {
        super(new InprocFaultsFixture());
    }
}
