package io.slime4j.wire.udp;

import static io.slime4j.wire.udp.Datagrams.numbered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.wire.udp.Datagrams.Received;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class UdpWireTest {

    private final UdpWire wire = new UdpWire(UdpConfig.defaults());

    @AfterEach
    void closeWire() {
        wire.close();
    }

    @Test
    void theWireIsCalledUdpAndIsAvailableHere() {
        assertThat(wire.name()).isEqualTo("udp");
        assertThat(wire.isAvailable()).isTrue();
        assertThat(wire.unavailabilityCause()).isNull();
    }

    @Test
    void anEmptyAddressBindsEphemeralLoopbackPortsForBothChannels() {
        UdpPort port = wire.bind("");

        UdpAddress a = port.localAddress();
        assertThat(a.socketAddress().getAddress().isLoopbackAddress()).isTrue();
        assertThat(a.socketAddress().getPort()).isPositive();
        assertThat(a.priorityPort()).isPositive().isNotEqualTo(a.socketAddress().getPort());
        assertThat(a.text()).matches("udp:127\\.0\\.0\\.1:\\d+/\\d+");
        assertThat(port.boundAddress()).isEqualTo(a);
        assertThat(wire.bind("udp:").localAddress().socketAddress().getAddress().isLoopbackAddress()).isTrue();
    }

    @Test
    void aFixedDataPortAndAFixedPriorityPortAreBoundAsGiven() throws Exception {
        int data = freePort();
        int priority = freePort();

        UdpPort port = wire.bind("udp:127.0.0.1:" + data + "/" + priority);

        assertThat(port.localAddress().text()).isEqualTo("udp:127.0.0.1:" + data + "/" + priority);
    }

    @Test
    void aDataPortInUseFailsWithAnUncheckedIoExceptionNamingTheAddress() {
        UdpPort first = wire.bind("udp:127.0.0.1:0");
        String taken = "udp:127.0.0.1:" + first.localAddress().socketAddress().getPort();

        assertThatThrownBy(() -> wire.bind(taken))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(taken)
                .hasMessageContaining("data channel")
                .hasCauseInstanceOf(BindException.class);
        assertThat(wire.ports()).containsExactly(first);
    }

    @Test
    void aPriorityPortInUseFailsNamingItAndLeavesTheDataPortFree() throws Exception {
        UdpPort first = wire.bind("udp:127.0.0.1:0");
        int data = freePort();
        int takenPriority = first.localAddress().priorityPort();
        String text = "udp:127.0.0.1:" + data + "/" + takenPriority;

        assertThatThrownBy(() -> wire.bind(text))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("priority channel")
                .hasMessageContaining("udp:127.0.0.1:" + takenPriority);
        assertThat(wire.bind("udp:127.0.0.1:" + data).localAddress().socketAddress().getPort())
                .as("the data channel opened before the failure was closed again").isEqualTo(data);
    }

    @Test
    void aTextOfAnotherWireIsRejectedByBind() {
        assertThatThrownBy(() -> wire.bind("inproc:a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'inproc:a'");
        assertThatThrownBy(() -> wire.bind("udp:127.0.0.1:70000")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anIpv6LoopbackRailCarriesDatagramsAndPrintsItsAddressInBrackets() {
        UdpPort a = wire.bind("udp:[::1]:0");
        UdpPort b = wire.bind("udp:[::1]:0");
        b.resolve(a.localAddress().text());

        a.send(b.localAddress(), numbered(7), 4, false);
        a.send(b.localAddress(), numbered(8), 4, true);

        assertThat(a.localAddress().text()).matches("udp:\\[::1\\]:\\d+/\\d+");
        assertThat(Datagrams.receive(b, 2, 5_000)).extracting(Received::number).containsExactlyInAnyOrder(7, 8);
    }

    @Test
    void anAdvertisedHostReplacesTheBoundHostAndKeepsTheBoundPorts() {
        UdpPort port = wire.bind("udp:127.0.0.1:0", "udp:192.0.2.7");

        UdpAddress bound = port.boundAddress();
        assertThat(port.localAddress().text()).isEqualTo("udp:192.0.2.7:" + bound.socketAddress().getPort() + "/"
                + bound.priorityPort());
        assertThat(bound.socketAddress().getAddress().isLoopbackAddress()).isTrue();
    }

    @Test
    void anAdvertisedAddressWithBothPortsReplacesEverythingAndZeroKeepsTheBoundPort() {
        UdpPort full = wire.bind("", "udp:192.0.2.7:4791/4792");
        UdpPort keepPriority = wire.bind("", "udp:192.0.2.7:4791/0");

        assertThat(full.localAddress().text()).isEqualTo("udp:192.0.2.7:4791/4792");
        assertThat(keepPriority.localAddress().text())
                .isEqualTo("udp:192.0.2.7:4791/" + keepPriority.boundAddress().priorityPort());
    }

    @Test
    void theConfiguredAdvertisedAddressAppliesToPortsBoundWithoutOne() {
        try (UdpWire natted = new UdpWire(UdpConfig.builder().advertisedAddress("udp:203.0.113.9").build())) {
            UdpPort port = natted.bind("");

            assertThat(port.localAddress().socketAddress().getAddress().getHostAddress()).isEqualTo("203.0.113.9");
            assertThat(port.localAddress().socketAddress().getPort()).isEqualTo(port.boundAddress().socketAddress().getPort());
        }
    }

    @Test
    void anAdvertisedAddressWithoutAPriorityPortMakesASingleSocketRailThatStillTalksToTwoChannelRails() {
        UdpPort single = wire.bind("udp:127.0.0.1:0", "udp:127.0.0.1:0");
        UdpPort dual = wire.bind("");
        assertThat(single.localAddress().hasPriorityPort()).isFalse();
        assertThat(single.boundAddress().priorityPort()).isZero();
        UdpAddress dualAsSeenBySingle = single.resolve(dual.localAddress().text());
        UdpAddress singleAsSeenByDual = dual.resolve(single.localAddress().text());

        dual.send(singleAsSeenByDual, numbered(1), 4, true);
        dual.send(singleAsSeenByDual, numbered(2), 4, false);
        single.send(dualAsSeenBySingle, numbered(3), 4, true);
        single.send(dualAsSeenBySingle, numbered(4), 4, false);

        assertThat(Datagrams.receive(single, 2, 5_000)).extracting(Received::from).containsOnly(dual.localAddress());
        assertThat(Datagrams.receive(dual, 2, 5_000)).extracting(Received::from).containsOnly(single.localAddress());
        assertThat(dual.stats().priorityDatagramsReceived()).isEqualTo(1);
    }

    @Test
    void aWildcardBindAdvertisesAConcreteHost() {
        UdpPort port = wire.bind("udp:0.0.0.0:0");

        assertThat(port.boundAddress().socketAddress().getAddress().isAnyLocalAddress()).isTrue();
        assertThat(port.localAddress().socketAddress().getAddress().isAnyLocalAddress()).isFalse();
    }

    @Test
    void malformedAdvertisedAddressesAreRejected() {
        assertThatThrownBy(() -> wire.bind("", "udp:")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> wire.bind("", "inproc:x")).isInstanceOf(IllegalArgumentException.class);
        assertThat(wire.ports()).isEmpty();
    }

    @Test
    void closingTheWireClosesItsPortsAndRefusesLaterBinds() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");

        wire.close();
        wire.close();

        assertThat(a.isClosed()).isTrue();
        assertThat(b.isClosed()).isTrue();
        assertThat(wire.ports()).isEmpty();
        assertThatThrownBy(() -> wire.bind("")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aClosedPortFreesItsPortNumbers() {
        UdpPort a = wire.bind("");
        String text = a.localAddress().text();
        a.close();

        assertThat(wire.bind(text).localAddress().text()).isEqualTo(text);
    }

    private static int freePort() throws Exception {
        try (DatagramChannel c = DatagramChannel.open()) {
            c.bind(new InetSocketAddress("127.0.0.1", 0));
            return ((InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }
}
