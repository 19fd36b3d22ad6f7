package io.slime4j.conformance.shmbusypoll;

import io.slime4j.conformance.RetryAndFlushConformance;

/** {@link RetryAndFlushConformance} on the shared-memory device with busy polling. */
class ShmBusyPollRetryAndFlushTest extends RetryAndFlushConformance {
    ShmBusyPollRetryAndFlushTest() {
        super(new ShmBusyPollFixture());
    }
}
