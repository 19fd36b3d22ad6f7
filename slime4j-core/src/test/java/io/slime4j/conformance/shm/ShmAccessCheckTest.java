package io.slime4j.conformance.shm;

import io.slime4j.conformance.AccessCheckConformance;

/** {@link AccessCheckConformance} on the shared-memory device. */
class ShmAccessCheckTest extends AccessCheckConformance {
    ShmAccessCheckTest() {
        super(new ShmFixture());
    }
}
