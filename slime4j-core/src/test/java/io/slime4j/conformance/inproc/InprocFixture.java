package io.slime4j.conformance.inproc;

import io.slime4j.conformance.DeviceFixture;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.inproc.InprocWire;

/** Soft-engine devices on one in-process wire without faults, a new wire for every test. */
public class InprocFixture implements DeviceFixture {
    /** The wire every device of the test shares. */
    protected final InprocWire wire;

    public InprocFixture() {
        this(new InprocWire());
    }

    /** A fixture on {@code wire}, for fixtures that inject faults into it. */
    protected InprocFixture(InprocWire wire) {
        this.wire = wire;
    }

    @Override
    public VerbsDevice openDevice(String name) {
        return SoftDevice.open(wire, "", SoftConfig.builder().name(name).build());
    }

    @Override
    public String unreachableAddress() {
        return "inproc:nobody-listens-here";
    }

    @Override
    public void close() {
        wire.close();
    }
}
