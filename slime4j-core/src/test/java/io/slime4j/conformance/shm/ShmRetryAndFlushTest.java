package io.slime4j.conformance.shm;

import io.slime4j.conformance.RetryAndFlushConformance;

/** {@link RetryAndFlushConformance} on the shared-memory device. */
class ShmRetryAndFlushTest extends RetryAndFlushConformance {
    ShmRetryAndFlushTest() {
        super(new ShmFixture());
    }
}
