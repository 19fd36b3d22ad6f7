package io.slime4j.conformance.inprocfaults;

import io.slime4j.conformance.RetryAndFlushConformance;

/** {@link RetryAndFlushConformance} on the in-process wire with injected loss, duplication and reordering. */
class InprocFaultsRetryAndFlushTest extends RetryAndFlushConformance {
    InprocFaultsRetryAndFlushTest() {
        super(new InprocFaultsFixture());
    }
}
