package io.slime4j.conformance;

import io.slime4j.verbs.VerbsDevice;

/** The conformance suite on the shared-memory device (two devices of one JVM). */
class ShmConformanceTest extends VerbsConformanceTest {
    @Override
    protected VerbsDevice openDevice(String name) {
        return ShmFixture.open(name);
    }

    @Override
    protected String unreachableAddress() {
        return ShmFixture.unreachableAddress();
    }
}
