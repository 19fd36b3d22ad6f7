package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Device addresses: round trip, and clear errors for anything else. */
class ShmAddressTest {
    @Test
    void anAddressRoundTrips() {
        ShmAddress a = ShmAddress.parse("shm:1234:17:987654321");
        assertThat(a).isEqualTo(new ShmAddress(1234, 17, 987654321L));
        assertThat(a.toString()).isEqualTo("shm:1234:17:987654321");
    }

    @Test
    void otherWiresAndMalformedAddressesAreRefusedNamingTheAddress() {
        assertThatThrownBy(() -> ShmAddress.parse("udp:127.0.0.1:4791")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("udp:127.0.0.1:4791");
        assertThatThrownBy(() -> ShmAddress.parse("shm:12:x:3")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shm:12:x:3");
        assertThatThrownBy(() -> ShmAddress.parse("shm:12:3")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ShmAddress.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
