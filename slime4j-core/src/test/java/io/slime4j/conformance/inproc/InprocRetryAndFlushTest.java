package io.slime4j.conformance.inproc;

import io.slime4j.conformance.RetryAndFlushConformance;

/** {@link RetryAndFlushConformance} on the in-process wire without faults. */
class InprocRetryAndFlushTest extends RetryAndFlushConformance {
    InprocRetryAndFlushTest() {
        super(new InprocFixture());
    }
}
