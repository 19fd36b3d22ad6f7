package io.slime4j.conformance.inproc;

import io.slime4j.conformance.AccessCheckConformance;

/** {@link AccessCheckConformance} on the in-process wire without faults. */
class InprocAccessCheckTest extends AccessCheckConformance {
    InprocAccessCheckTest() {
        super(new InprocFixture());
    }
}
