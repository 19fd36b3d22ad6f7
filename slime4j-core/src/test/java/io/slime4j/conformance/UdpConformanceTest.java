package io.slime4j.conformance;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpWire;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import org.junit.jupiter.api.AfterEach;

/**
 * The conformance suite on the UDP wire with the NIO backend: devices on ephemeral 127.0.0.1 ports
 * of one JVM, each a rail with a data and a priority channel. The kernel's loopback does not lose
 * datagrams unless a receive buffer overflows, so the suite runs without injected faults.
 * {@link NativeUdpConformanceTest} runs it on the native backend.
 */
class UdpConformanceTest extends VerbsConformanceTest {
    private final UdpWire wire = new UdpWire(config());

    /** The wire's settings; subclasses choose another backend. */
    protected UdpConfig config() {
        return UdpConfig.builder().backend(UdpConfig.Backend.NIO).build();
    }
    private String unreachable;

    @Override
    protected VerbsDevice openDevice(String name) {
        return SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name(name).build());
    }

    /** A loopback port that was free a moment ago: bound, noted and closed again. */
    @Override
    protected String unreachableAddress() {
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

    @AfterEach
    void closeWire() {
        wire.close();
    }
}
