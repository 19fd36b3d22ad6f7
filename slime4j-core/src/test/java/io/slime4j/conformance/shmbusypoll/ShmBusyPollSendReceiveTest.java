package io.slime4j.conformance.shmbusypoll;

import io.slime4j.conformance.SendReceiveConformance;

/** {@link SendReceiveConformance} on the shared-memory device with busy polling. */
class ShmBusyPollSendReceiveTest extends SendReceiveConformance {
    ShmBusyPollSendReceiveTest() {
        super(new ShmBusyPollFixture());
    }
}
