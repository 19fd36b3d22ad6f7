package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(10)
class UdpAddressTest {

    @Test
    void anIpv4AddressParsesIntoItsSocketAddressAndPrintsBackTheSame() throws Exception {
        UdpAddress a = UdpAddress.parse("udp:127.0.0.1:4791");

        assertThat(a.socketAddress()).isEqualTo(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 4791));
        assertThat(a.hasPriorityPort()).isFalse();
        assertThat(a.priorityPort()).isZero();
        assertThat(a.prioritySocketAddress()).as("single-socket rail: priority goes to the data port")
                .isEqualTo(a.socketAddress());
        assertThat(a.text()).isEqualTo("udp:127.0.0.1:4791");
        assertThat(a).hasToString("udp:127.0.0.1:4791");
    }

    @Test
    void aPriorityPortAfterASlashNamesThePriorityChannel() {
        UdpAddress a = UdpAddress.parse("udp:10.1.2.3:4791/40123");

        assertThat(a.socketAddress().getPort()).isEqualTo(4791);
        assertThat(a.priorityPort()).isEqualTo(40123);
        assertThat(a.prioritySocketAddress()).isEqualTo(new InetSocketAddress(a.socketAddress().getAddress(), 40123));
        assertThat(a.text()).isEqualTo("udp:10.1.2.3:4791/40123");
    }

    @Test
    void anIpv6AddressIsWrittenInBracketsBothWays() {
        UdpAddress a = UdpAddress.parse("udp:[::1]:4791/4792");

        assertThat(a.socketAddress().getAddress()).isInstanceOf(Inet6Address.class);
        assertThat(a.socketAddress().getAddress().isLoopbackAddress()).isTrue();
        assertThat(a.text()).isEqualTo("udp:[::1]:4791/4792");
        assertThat(UdpAddress.parse(a.text())).isEqualTo(a);
    }

    @Test
    void ipv6HostsPrintInTheShortestStandardForm() {
        assertThat(UdpAddress.parse("udp:[2001:db8:0:0:0:0:2:1]:1").text()).isEqualTo("udp:[2001:db8::2:1]:1");
        assertThat(UdpAddress.parse("udp:[2001:db8:0:1:1:1:1:1]:1").text()).isEqualTo("udp:[2001:db8:0:1:1:1:1:1]:1");
        assertThat(UdpAddress.parse("udp:[2001:0:0:1:0:0:0:1]:1").text()).isEqualTo("udp:[2001:0:0:1::1]:1");
        assertThat(UdpAddress.parse("udp:[::]:1").text()).isEqualTo("udp:[::]:1");
        assertThat(UdpAddress.parse("udp:[fe80::1:0]:1").text()).isEqualTo("udp:[fe80::1:0]:1");
        assertThat(UdpAddress.parse("udp:[1::]:1").text()).isEqualTo("udp:[1::]:1");
    }

    @Test
    void aHostNameIsResolvedAndPrintedAsANumericAddress() {
        UdpAddress a = UdpAddress.parse("udp:localhost:5000");

        assertThat(a.socketAddress().getAddress().isLoopbackAddress()).isTrue();
        assertThat(a.text()).doesNotContain("localhost").endsWith(":5000");
    }

    @Test
    void addressesAreValuesComparedBySocketAddressAndPriorityPort() {
        UdpAddress a = UdpAddress.parse("udp:127.0.0.1:5000/5001");
        UdpAddress same = UdpAddress.of(new InetSocketAddress("127.0.0.1", 5000), 5001);

        assertThat(a).isEqualTo(same).hasSameHashCodeAs(same);
        assertThat(a).isNotEqualTo(UdpAddress.parse("udp:127.0.0.1:5000"));
        assertThat(a).isNotEqualTo(UdpAddress.parse("udp:127.0.0.1:5000/5002"));
        assertThat(a).isNotEqualTo(UdpAddress.parse("udp:127.0.0.2:5000/5001"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"inproc:a", "tcp:127.0.0.1:5000", "127.0.0.1:5000", "UDP:127.0.0.1:5000", "", "udp"})
    void anotherSchemeIsRejectedWithAMessageNamingTheText(String text) {
        assertThatThrownBy(() -> UdpAddress.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + text + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp:", "udp:127.0.0.1", "udp:127.0.0.1:", "udp:127.0.0.1:0", "udp:127.0.0.1:65536",
            "udp:127.0.0.1:-1", "udp:127.0.0.1:http", "udp:127.0.0.1:123456", "udp:::1:5000", "udp:[::1:5000",
            "udp:[]:5000", "udp:[127.0.0.1]:5000", "udp:[::1]5000", "udp:127.0.0.1:5000/0", "udp:127.0.0.1:5000/",
            "udp:127.0.0.1:5000/x", "udp:127.0.0.1:5000/70000", "udp::5000", "udp:two words:5000",
            "udp:127.0.0.1:5000/5001/5002"})
    void aMalformedTextIsRejectedWithAMessageNamingIt(String text) {
        assertThatThrownBy(() -> UdpAddress.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + text + "'");
    }

    @Test
    void anUnknownHostIsRejectedWithAMessageNamingTheText() {
        assertThatThrownBy(() -> UdpAddress.parse("udp:no-such-host.invalid:5000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'udp:no-such-host.invalid:5000'");
    }

    @Test
    void aNullTextIsRejected() {
        assertThatThrownBy(() -> UdpAddress.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ofRefusesUnresolvedAddressesAndPortZero() {
        assertThatThrownBy(() -> UdpAddress.of(InetSocketAddress.createUnresolved("example.org", 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> UdpAddress.of(new InetSocketAddress("127.0.0.1", 0)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> UdpAddress.of(new InetSocketAddress("127.0.0.1", 1), 65536))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
