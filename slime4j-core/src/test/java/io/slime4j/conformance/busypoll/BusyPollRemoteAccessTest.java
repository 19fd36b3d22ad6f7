package io.slime4j.conformance.busypoll;

import io.slime4j.conformance.RemoteAccessConformance;

/** {@link RemoteAccessConformance} on busy-polling devices (the waiting thread drives the device). */
class BusyPollRemoteAccessTest extends RemoteAccessConformance {
    BusyPollRemoteAccessTest() {
        super(new BusyPollFixture());
    }
}
