package io.slime4j.conformance.udp;

import io.slime4j.conformance.CompletionAndCounterConformance;

/** {@link CompletionAndCounterConformance} on the UDP wire with the NIO backend. */
class UdpCompletionAndCounterTest extends CompletionAndCounterConformance {
    UdpCompletionAndCounterTest() {
        super(new UdpFixture());
    }
}
