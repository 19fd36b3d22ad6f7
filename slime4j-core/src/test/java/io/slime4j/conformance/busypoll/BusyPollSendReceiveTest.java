package io.slime4j.conformance.busypoll;

import io.slime4j.conformance.SendReceiveConformance;

/** {@link SendReceiveConformance} on busy-polling devices (the waiting thread drives the device). */
class BusyPollSendReceiveTest extends SendReceiveConformance {
    BusyPollSendReceiveTest() {
        super(new BusyPollFixture());
    }
}
