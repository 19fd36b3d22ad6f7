package io.slime4j.conformance.inprocfaults;

import io.slime4j.conformance.SendReceiveConformance;

/** {@link SendReceiveConformance} on the in-process wire with injected loss, duplication and reordering. */
class InprocFaultsSendReceiveTest extends SendReceiveConformance {
    InprocFaultsSendReceiveTest() {
        super(new InprocFaultsFixture());
    }
}
