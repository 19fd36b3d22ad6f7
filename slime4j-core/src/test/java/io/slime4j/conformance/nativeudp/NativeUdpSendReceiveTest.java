package io.slime4j.conformance.nativeudp;

import io.slime4j.conformance.SendReceiveConformance;

/** {@link SendReceiveConformance} on the UDP wire with the native backend. */
class NativeUdpSendReceiveTest extends SendReceiveConformance {
    NativeUdpSendReceiveTest() {
        super(new NativeUdpFixture());
    }
}
