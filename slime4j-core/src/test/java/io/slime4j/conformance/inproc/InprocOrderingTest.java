package io.slime4j.conformance.inproc;

import io.slime4j.conformance.OrderingConformance;

/** {@link OrderingConformance} on the in-process wire without faults. */
class InprocOrderingTest extends OrderingConformance {
    InprocOrderingTest() {
        super(new InprocFixture());
    }
}
