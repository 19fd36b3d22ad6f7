package io.slime4j.conformance.busypoll;

import io.slime4j.conformance.CompletionAndCounterConformance;

/** {@link CompletionAndCounterConformance} on busy-polling devices (the waiting thread drives the device). */
class BusyPollCompletionAndCounterTest extends CompletionAndCounterConformance {
    BusyPollCompletionAndCounterTest() {
        super(new BusyPollFixture());
    }
}
