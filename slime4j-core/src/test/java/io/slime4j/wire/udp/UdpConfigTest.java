package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class UdpConfigTest {

    @Test
    void theDefaultsAreFourMebibyteBuffersTheIpv4MaximumDatagramAndNoAdvertisedAddress() {
        UdpConfig c = UdpConfig.defaults();

        assertThat(c.receiveBufferSize()).isEqualTo(4 << 20);
        assertThat(c.sendBufferSize()).isEqualTo(4 << 20);
        assertThat(c.maxDatagramSize()).isEqualTo(65_507);
        assertThat(c.advertisedAddress()).isEmpty();
    }

    @Test
    void theLargestEngineMtuWithItsHeaderFitsTheDefaultDatagram() {
        assertThat(io.slime4j.verbs.QpConfig.MAX_MTU + 64).isLessThanOrEqualTo(UdpConfig.defaults().maxDatagramSize());
    }

    @Test
    void outOfRangeSettingsAreRejectedNamingTheSetting() {
        assertThatThrownBy(() -> UdpConfig.builder().receiveBufferSize(100).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("receiveBufferSize");
        assertThatThrownBy(() -> UdpConfig.builder().sendBufferSize(Integer.MAX_VALUE).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sendBufferSize");
        assertThatThrownBy(() -> UdpConfig.builder().maxDatagramSize(65_508).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxDatagramSize");
        assertThatThrownBy(() -> UdpConfig.builder().maxDatagramSize(100).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxDatagramSize");
        assertThatThrownBy(() -> UdpConfig.builder().advertisedAddress("inproc:x").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("advertisedAddress");
        assertThatThrownBy(() -> UdpConfig.builder().advertisedAddress("udp:").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("advertisedAddress");
    }

    @Test
    void everySettingHasAnEnvironmentVariableDerivedFromItsProperty() {
        assertThat(UdpConfig.environmentName(UdpConfig.RECEIVE_BUFFER_SIZE_PROPERTY))
                .isEqualTo("SLIME4J_UDP_RECEIVE_BUFFER_SIZE");
        assertThat(UdpConfig.environmentName(UdpConfig.SEND_BUFFER_SIZE_PROPERTY))
                .isEqualTo("SLIME4J_UDP_SEND_BUFFER_SIZE");
        assertThat(UdpConfig.environmentName(UdpConfig.MAX_DATAGRAM_SIZE_PROPERTY))
                .isEqualTo("SLIME4J_UDP_MAX_DATAGRAM_SIZE");
        assertThat(UdpConfig.environmentName(UdpConfig.ADVERTISED_ADDRESS_PROPERTY))
                .isEqualTo("SLIME4J_UDP_ADVERTISED_ADDRESS");
    }

    @Test
    void systemPropertiesWinOverEnvironmentVariablesWhichWinOverDefaults() {
        Map<String, String> properties = Map.of("slime4j.udp.receiveBufferSize", "8m",
                "slime4j.udp.advertisedAddress", "udp:192.0.2.1");
        Map<String, String> environment = Map.of("SLIME4J_UDP_RECEIVE_BUFFER_SIZE", "1m",
                "SLIME4J_UDP_SEND_BUFFER_SIZE", "256KiB", "SLIME4J_UDP_MAX_DATAGRAM_SIZE", "9000");

        UdpConfig c = UdpConfig.builder().applyEnvironment(properties::get, environment::get).build();

        assertThat(c.receiveBufferSize()).isEqualTo(8 << 20);
        assertThat(c.sendBufferSize()).isEqualTo(256 << 10);
        assertThat(c.maxDatagramSize()).isEqualTo(9000);
        assertThat(c.advertisedAddress()).isEqualTo("udp:192.0.2.1");
    }

    @Test
    void aMalformedOrOutOfRangeValueNamesThePropertyOrVariableItCameFrom() {
        Map<String, String> none = Map.of();
        assertThatThrownBy(() -> UdpConfig.builder()
                .applyEnvironment(Map.of("slime4j.udp.sendBufferSize", "lots")::get, none::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("system property slime4j.udp.sendBufferSize").hasMessageContaining("'lots'");
        assertThatThrownBy(() -> UdpConfig.builder()
                .applyEnvironment(none::get, Map.of("SLIME4J_UDP_MAX_DATAGRAM_SIZE", "1m")::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("environment variable SLIME4J_UDP_MAX_DATAGRAM_SIZE");
    }

    @Test
    void fromEnvironmentReadsTheSystemProperties() {
        System.setProperty(UdpConfig.SEND_BUFFER_SIZE_PROPERTY, "1m");
        try {
            assertThat(UdpConfig.fromEnvironment().sendBufferSize()).isEqualTo(1 << 20);
            assertThat(new UdpWire().config().sendBufferSize()).isEqualTo(1 << 20);
        } finally {
            System.clearProperty(UdpConfig.SEND_BUFFER_SIZE_PROPERTY);
        }
    }

    @Test
    void sizesAcceptBinarySuffixes() {
        assertThat(UdpConfig.parseSize("x", "4194304")).isEqualTo(4 << 20);
        assertThat(UdpConfig.parseSize("x", "4096k")).isEqualTo(4 << 20);
        assertThat(UdpConfig.parseSize("x", "4M")).isEqualTo(4 << 20);
        assertThat(UdpConfig.parseSize("x", " 4 MiB ")).isEqualTo(4 << 20);
        assertThat(UdpConfig.parseSize("x", "1g")).isEqualTo(1 << 30);
        assertThatThrownBy(() -> UdpConfig.parseSize("x", "4g")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> UdpConfig.parseSize("x", "-1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void toBuilderKeepsEverySetting() {
        UdpConfig c = UdpConfig.builder().receiveBufferSize(1 << 20).sendBufferSize(2 << 20).maxDatagramSize(9000)
                .advertisedAddress("udp:192.0.2.1:1/2").build();

        assertThat(c.toBuilder().build()).isEqualTo(c);
    }

    @Test
    void theBackendComesFromItsPropertyOrVariableAndAMisspelledOneIsNamed() {
        Map<String, String> none = Map.of();
        assertThat(UdpConfig.defaults().backend()).isEqualTo(UdpConfig.Backend.AUTO);
        assertThat(UdpConfig.builder().applyEnvironment(Map.of("slime4j.udp.backend", "NIO")::get, none::get).build()
                .backend()).isEqualTo(UdpConfig.Backend.NIO);
        assertThat(UdpConfig.builder().applyEnvironment(none::get, Map.of("SLIME4J_UDP_BACKEND", "native")::get).build()
                .backend()).isEqualTo(UdpConfig.Backend.NATIVE);
        assertThatThrownBy(() -> UdpConfig.builder()
                .applyEnvironment(Map.of("slime4j.udp.backend", "jni")::get, none::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("system property slime4j.udp.backend must be auto, nio or native, was 'jni'");
        assertThatThrownBy(() -> UdpConfig.builder().backend(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backend");
        assertThat(UdpConfig.Backend.NIO.resolve()).isEqualTo(UdpConfig.Backend.NIO);
    }
}
