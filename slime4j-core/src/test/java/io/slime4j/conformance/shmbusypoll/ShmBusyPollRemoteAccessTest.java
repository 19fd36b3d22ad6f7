package io.slime4j.conformance.shmbusypoll;

import io.slime4j.conformance.RemoteAccessConformance;

/** {@link RemoteAccessConformance} on the shared-memory device with busy polling. */
class ShmBusyPollRemoteAccessTest extends RemoteAccessConformance {
    ShmBusyPollRemoteAccessTest() {
        super(new ShmBusyPollFixture());
    }
}
