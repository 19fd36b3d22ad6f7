package io.slime4j.conformance.inprocfaults;

import io.slime4j.conformance.OrderingConformance;

/** {@link OrderingConformance} on the in-process wire with injected loss, duplication and reordering. */
class InprocFaultsOrderingTest extends OrderingConformance {
    InprocFaultsOrderingTest() {
        super(new InprocFaultsFixture());
    }
}
