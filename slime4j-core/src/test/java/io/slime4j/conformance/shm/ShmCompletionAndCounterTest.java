package io.slime4j.conformance.shm;

import io.slime4j.conformance.CompletionAndCounterConformance;

/** {@link CompletionAndCounterConformance} on the shared-memory device. */
class ShmCompletionAndCounterTest extends CompletionAndCounterConformance {
    ShmCompletionAndCounterTest() {
        super(new ShmFixture());
    }
}
