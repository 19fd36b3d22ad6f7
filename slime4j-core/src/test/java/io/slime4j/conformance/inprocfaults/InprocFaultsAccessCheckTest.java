package io.slime4j.conformance.inprocfaults;

import io.slime4j.conformance.AccessCheckConformance;

/** {@link AccessCheckConformance} on the in-process wire with injected loss, duplication and reordering. */
class InprocFaultsAccessCheckTest extends AccessCheckConformance {
    InprocFaultsAccessCheckTest() {
        super(new InprocFaultsFixture());
    }
}
