package io.slime4j.conformance.nativeudp;

import io.slime4j.conformance.RetryAndFlushConformance;

/** {@link RetryAndFlushConformance} on the UDP wire with the native backend. */
class NativeUdpRetryAndFlushTest extends RetryAndFlushConformance {
    NativeUdpRetryAndFlushTest() {
        super(new NativeUdpFixture());
    }
}
