package io.slime4j.conformance.inproc;

import io.slime4j.conformance.SendReceiveConformance;

/** {@link SendReceiveConformance} on the in-process wire without faults. */
class InprocSendReceiveTest extends SendReceiveConformance {
    InprocSendReceiveTest() {
        super(new InprocFixture());
    }
}
