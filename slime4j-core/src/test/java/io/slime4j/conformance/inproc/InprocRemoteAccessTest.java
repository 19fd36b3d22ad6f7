package io.slime4j.conformance.inproc;

import io.slime4j.conformance.RemoteAccessConformance;

/** {@link RemoteAccessConformance} on the in-process wire without faults. */
class InprocRemoteAccessTest extends RemoteAccessConformance {
    InprocRemoteAccessTest() {
        super(new InprocFixture());
    }
}
