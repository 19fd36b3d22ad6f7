package io.slime4j.conformance.shm;

import io.slime4j.conformance.OrderingConformance;

/** {@link OrderingConformance} on the shared-memory device. */
class ShmOrderingTest extends OrderingConformance {
    ShmOrderingTest() {
        super(new ShmFixture());
    }
}
