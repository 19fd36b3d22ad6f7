package io.slime4j.conformance.nativeudp;

import io.slime4j.conformance.RemoteAccessConformance;

/** {@link RemoteAccessConformance} on the UDP wire with the native backend. */
class NativeUdpRemoteAccessTest extends RemoteAccessConformance {
    NativeUdpRemoteAccessTest() {
        super(new NativeUdpFixture());
    }
}
