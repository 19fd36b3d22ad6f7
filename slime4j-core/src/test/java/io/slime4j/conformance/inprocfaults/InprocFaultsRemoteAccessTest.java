package io.slime4j.conformance.inprocfaults;

import io.slime4j.conformance.RemoteAccessConformance;

/** {@link RemoteAccessConformance} on the in-process wire with injected loss, duplication and reordering. */
class InprocFaultsRemoteAccessTest extends RemoteAccessConformance {
    InprocFaultsRemoteAccessTest() {
        super(new InprocFaultsFixture());
    }
}
