package io.slime4j.conformance.busypoll;

import io.slime4j.conformance.RetryAndFlushConformance;

/** {@link RetryAndFlushConformance} on busy-polling devices (the waiting thread drives the device). */
class BusyPollRetryAndFlushTest extends RetryAndFlushConformance {
    BusyPollRetryAndFlushTest() {
        super(new BusyPollFixture());
    }
}
