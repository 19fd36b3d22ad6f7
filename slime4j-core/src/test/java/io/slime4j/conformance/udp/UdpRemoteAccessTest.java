package io.slime4j.conformance.udp;

import io.slime4j.conformance.RemoteAccessConformance;

/** {@link RemoteAccessConformance} on the UDP wire with the NIO backend. */
class UdpRemoteAccessTest extends RemoteAccessConformance {
    UdpRemoteAccessTest() {
        super(new UdpFixture());
    }
}
