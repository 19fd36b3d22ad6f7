package io.slime4j.conformance.nativeudp;

import io.slime4j.conformance.OrderingConformance;

/** {@link OrderingConformance} on the UDP wire with the native backend. */
class NativeUdpOrderingTest extends OrderingConformance {
    NativeUdpOrderingTest() {
        super(new NativeUdpFixture());
    }
}
