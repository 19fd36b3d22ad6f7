package io.slime4j.conformance.inprocfaults;

import io.slime4j.conformance.CompletionAndCounterConformance;

/** {@link CompletionAndCounterConformance} on the in-process wire with injected loss, duplication and reordering. */
class InprocFaultsCompletionAndCounterTest extends CompletionAndCounterConformance {
    InprocFaultsCompletionAndCounterTest() {
        super(new InprocFaultsFixture());
    }
}
