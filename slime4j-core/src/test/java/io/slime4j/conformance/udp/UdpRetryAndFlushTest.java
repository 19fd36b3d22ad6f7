package io.slime4j.conformance.udp;

import io.slime4j.conformance.RetryAndFlushConformance;

/** {@link RetryAndFlushConformance} on the UDP wire with the NIO backend. */
class UdpRetryAndFlushTest extends RetryAndFlushConformance {
    UdpRetryAndFlushTest() {
        super(new UdpFixture());
    }
}
