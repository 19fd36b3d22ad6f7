package io.slime4j.conformance.nativeudp;

import io.slime4j.conformance.CompletionAndCounterConformance;

/** {@link CompletionAndCounterConformance} on the UDP wire with the native backend. */
class NativeUdpCompletionAndCounterTest extends CompletionAndCounterConformance {
    NativeUdpCompletionAndCounterTest() {
        super(new NativeUdpFixture());
    }
}
