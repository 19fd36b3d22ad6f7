package io.slime4j.conformance.shmbusypoll;

import io.slime4j.conformance.AccessCheckConformance;

/** {@link AccessCheckConformance} on the shared-memory device with busy polling. */
class ShmBusyPollAccessCheckTest extends AccessCheckConformance {
    ShmBusyPollAccessCheckTest() {
        super(new ShmBusyPollFixture());
    }
}
