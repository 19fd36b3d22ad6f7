package io.slime4j.conformance;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.inproc.InprocWire;
import org.junit.jupiter.api.AfterEach;

/** The conformance suite on the in-process wire without faults. */
class InprocConformanceTest extends VerbsConformanceTest {
    protected final InprocWire wire = newWire();

    /** The wire the devices of one test share; subclasses inject faults here (uses no instance state). */
    protected InprocWire newWire() {
        return new InprocWire();
    }

    @Override
    protected VerbsDevice openDevice(String name) {
        return SoftDevice.open(wire, "", SoftConfig.builder().name(name).build());
    }

    @Override
    protected String unreachableAddress() {
        return "inproc:nobody-listens-here";
    }

    @AfterEach
    void closeWire() {
        wire.close();
    }
}
