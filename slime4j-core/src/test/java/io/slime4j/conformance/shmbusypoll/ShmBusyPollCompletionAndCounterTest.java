package io.slime4j.conformance.shmbusypoll;

import io.slime4j.conformance.CompletionAndCounterConformance;

/** {@link CompletionAndCounterConformance} on the shared-memory device with busy polling. */
class ShmBusyPollCompletionAndCounterTest extends CompletionAndCounterConformance {
    ShmBusyPollCompletionAndCounterTest() {
        super(new ShmBusyPollFixture());
    }
}
