package io.slime4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.endpoint.EndpointConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class EngineSettingsTest {
    private static EngineSettings of(Duration lease, Duration heartbeat, Duration connectTimeout, int rails) {
        return EngineSettings.of(lease, heartbeat, connectTimeout, "127.0.0.1", rails, EndpointConfig.defaults(),
                null, null);
    }

    @Test
    void theHeartbeatDefaultsToAThirdOfTheLeaseAndTheHostIdToThisHost() {
        EngineSettings s = of(Duration.ofSeconds(9), null, Duration.ofSeconds(1), 2);
        assertThat(s.heartbeat()).isEqualTo(Duration.ofSeconds(3));
        assertThat(s.hostId()).isNotBlank();
        assertThat(s.rails()).isEqualTo(2);
    }

    @Test
    void eachSettingOutOfRangeIsNamedWithItsRuleAndValue() {
        Duration ok = Duration.ofSeconds(3);
        assertThatThrownBy(() -> of(Duration.ofMillis(999), null, ok, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("lease must be at least 1 s, was PT0.999S");
        assertThatThrownBy(() -> of(null, null, ok, 1)).hasMessage("lease must be at least 1 s, was null");
        assertThatThrownBy(() -> of(ok, ok, ok, 1))
                .hasMessage("heartbeat must be positive and shorter than the lease PT3S, was PT3S");
        assertThatThrownBy(() -> of(ok, Duration.ZERO, ok, 1)).hasMessageStartingWith("heartbeat must be positive");
        assertThatThrownBy(() -> of(ok, null, Duration.ZERO, 1)).hasMessage("connectTimeout must be positive, was PT0S");
        assertThatThrownBy(() -> of(ok, null, ok, 0))
                .hasMessage("rails must be 1.." + EndpointConfig.MAX_QPS + ", was 0");
        assertThatThrownBy(() -> of(ok, null, ok, EndpointConfig.MAX_QPS + 1)).hasMessageStartingWith("rails must be");
    }
}
