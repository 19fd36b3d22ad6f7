package io.slime4j.conformance.inproc;

import io.slime4j.conformance.CompletionAndCounterConformance;

/** {@link CompletionAndCounterConformance} on the in-process wire without faults. */
class InprocCompletionAndCounterTest extends CompletionAndCounterConformance {
    InprocCompletionAndCounterTest() {
        super(new InprocFixture());
    }
}
