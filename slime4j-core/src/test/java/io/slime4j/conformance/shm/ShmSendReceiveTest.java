package io.slime4j.conformance.shm;

import io.slime4j.conformance.SendReceiveConformance;

/** {@link SendReceiveConformance} on the shared-memory device. */
class ShmSendReceiveTest extends SendReceiveConformance {
    ShmSendReceiveTest() {
        super(new ShmFixture());
    }
}
