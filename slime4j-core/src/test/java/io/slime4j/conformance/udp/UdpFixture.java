package io.slime4j.conformance.udp;

import io.slime4j.conformance.DeviceFixture;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpWire;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;

/**
 * Soft-engine devices on the UDP wire with the NIO backend: devices on ephemeral 127.0.0.1 ports
 * of one JVM, each a rail with a data and a priority channel, a new wire for every test. The
 * kernel's loopback does not lose datagrams unless a receive buffer overflows, so the suites run
 * without injected faults.
 */
public class UdpFixture implements DeviceFixture {
    private final UdpWire wire;
    private String unreachable;

    public UdpFixture() {
        this(UdpConfig.builder().backend(UdpConfig.Backend.NIO).build());
    }

    /** A fixture on a wire with other settings (another backend). */
    protected UdpFixture(UdpConfig config) {
        this.wire = new UdpWire(config);
    }

    @Override
    public VerbsDevice openDevice(String name) {
        return SoftDevice.open(wire, "udp:127.0.0.1:0", deviceConfig(name).build());
    }

    /** The settings of the devices this fixture opens (a subclass may change more than the wire's). */
    protected SoftConfig.Builder deviceConfig(String name) {
        return SoftConfig.builder().name(name);
    }

    /** A loopback port that was free a moment ago: bound, noted and closed again. */
    @Override
    public String unreachableAddress() {
        if (unreachable == null) {
            try (DatagramChannel probe = DatagramChannel.open()) {
                probe.bind(new InetSocketAddress("127.0.0.1", 0));
                unreachable = "udp:127.0.0.1:" + ((InetSocketAddress) probe.getLocalAddress()).getPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return unreachable;
    }

    @Override
    public void close() {
        wire.close();
    }
}
