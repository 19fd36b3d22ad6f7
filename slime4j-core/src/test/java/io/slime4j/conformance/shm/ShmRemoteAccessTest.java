package io.slime4j.conformance.shm;

import io.slime4j.conformance.RemoteAccessConformance;

/** {@link RemoteAccessConformance} on the shared-memory device. */
class ShmRemoteAccessTest extends RemoteAccessConformance {
    ShmRemoteAccessTest() {
        super(new ShmFixture());
    }
}
