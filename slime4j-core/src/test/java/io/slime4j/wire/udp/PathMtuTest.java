package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.NetworkInterface;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link PathMtu}: the MTU a rail's datagrams must fit and the largest datagram that does. */
@Timeout(10)
class PathMtuTest {

    @Test
    void aConfiguredMtuWinsAndLeavesTheUdpPayloadAfterTheIpAndUdpHeaders() throws Exception {
        InetAddress v4 = InetAddress.getByName("127.0.0.1");
        InetAddress v6 = InetAddress.getByName("::1");
        assertThat(PathMtu.mtu(v4, 1500)).isEqualTo(1500);
        assertThat(PathMtu.datagramSize(v4, 1500, UdpConfig.MAX_DATAGRAM_SIZE)).isEqualTo(1472);
        assertThat(PathMtu.datagramSize(v6, 1500, UdpConfig.MAX_DATAGRAM_SIZE)).isEqualTo(1452);
        assertThat(PathMtu.datagramSize(v4, 9000, 4096)).as("at most the largest datagram").isEqualTo(4096);
    }

    @Test
    void loopbackTakesTheLoopbackInterfacesMtuWhichCarriesTheLargestDatagram() throws Exception {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        int mtu = NetworkInterface.getByInetAddress(lo).getMTU();
        assertThat(PathMtu.mtu(lo, 0)).isEqualTo(mtu);
        if (mtu >= 65_536) {
            assertThat(PathMtu.datagramSize(lo, mtu, UdpConfig.MAX_DATAGRAM_SIZE)).isEqualTo(UdpConfig.MAX_DATAGRAM_SIZE);
        }
    }

    @Test
    void nativeDatagramsCarryTheDontFragmentBitUnlessFragmentationIsAllowed() throws Exception {
        assertThat(UdpConfig.Backend.nativeUnavailability()).as("native udp backend unavailable").isNull();
        UdpConfig.Builder b = UdpConfig.builder().backend(UdpConfig.Backend.NATIVE);
        try (UdpWire never = new UdpWire(b.build()); UdpWire allowed = new UdpWire(b.fragmentation(true).build())) {
            NativeUdpSocket df = (NativeUdpSocket) never.bind("udp:127.0.0.1:0").dataSocket();
            NativeUdpSocket mayFragment = (NativeUdpSocket) allowed.bind("udp:127.0.0.1:0").dataSocket();
            assertThat(df.mtuDiscover()).as("IP_PMTUDISC_DO").isEqualTo(Libc.IP_PMTUDISC_DO);
            assertThat(mayFragment.mtuDiscover()).as("the kernel's default").isNotEqualTo(Libc.IP_PMTUDISC_DO);
        }
    }

    @Test
    void aPortReportsThePathItWasSizedFor() {
        try (UdpWire wire = new UdpWire(UdpConfig.builder().pathMtu(1500).build())) {
            UdpPort port = wire.bind("udp:127.0.0.1:0");
            assertThat(port.pathMtu()).isEqualTo(1500);
            assertThat(port.pathPacketSize()).isEqualTo(1472);
            assertThat(port.maxPacketSize()).as("larger datagrams are still received").isEqualTo(65_507);
        }
    }
}
