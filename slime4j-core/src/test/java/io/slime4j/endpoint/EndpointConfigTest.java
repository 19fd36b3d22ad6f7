package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class EndpointConfigTest {

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        EndpointConfig c = EndpointConfig.defaults();
        assertThat(c.qps()).isEqualTo(1);
        assertThat(c.ioSlots()).isEqualTo(256);
        assertThat(c.requestsPerSlot()).isEqualTo(16);
        assertThat(c.maxRequestBytes()).as("0: the device's preference").isZero();
        assertThat(c.messageSlots()).isEqualTo(64);
        assertThat(c.immWindow()).isEqualTo(256);
        assertThat(c.sendQueueDepth()).isEqualTo(1024);
        assertThat(c.slotTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.pollTimeout()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.completionExecutor()).isNull();
        assertThat(c.toBuilder().build()).isEqualTo(c);
    }

    @Test
    void everySettingIsValidatedWithAMessageNamingIt() {
        assertThatThrownBy(() -> EndpointConfig.builder().qps(0).build()).hasMessageContaining("qps must be in 1..64");
        assertThatThrownBy(() -> EndpointConfig.builder().qps(65).build()).hasMessageContaining("qps");
        assertThatThrownBy(() -> EndpointConfig.builder().ioSlots(0).build()).hasMessageContaining("ioSlots");
        assertThatThrownBy(() -> EndpointConfig.builder().requestsPerSlot(5000).build())
                .hasMessageContaining("requestsPerSlot");
        assertThatThrownBy(() -> EndpointConfig.builder().maxRequestBytes(-1).build()).hasMessageContaining("maxRequestBytes");
        assertThatThrownBy(() -> EndpointConfig.builder().messageSlots(1 << 15).build()).hasMessageContaining("messageSlots");
        assertThatThrownBy(() -> EndpointConfig.builder().immWindow(0).build()).hasMessageContaining("immWindow");
        assertThatThrownBy(() -> EndpointConfig.builder().sendQueueDepth(0).build()).hasMessageContaining("sendQueueDepth");
        assertThatThrownBy(() -> EndpointConfig.builder().slotTimeout(Duration.ZERO).build()).hasMessageContaining("slotTimeout");
        assertThatThrownBy(() -> EndpointConfig.builder().pollTimeout(Duration.ofMinutes(1)).build())
                .hasMessageContaining("pollTimeout");
        assertThatThrownBy(() -> EndpointConfig.builder().qpTemplate(null).build()).hasMessageContaining("qpTemplate");
        assertThat(WindowSizes.completionQueue(64, 65536, 65535, 1 << 14)).isLessThan(1 << 24);
    }

    @Test
    void propertiesOverrideTheDefaultsAndEnvironmentVariablesThem() {
        Properties props = new Properties();
        props.setProperty("slime4j.endpoint.qps", "4");
        props.setProperty("slime4j.endpoint.slotTimeout", "PT2S");
        Map<String, String> env = Map.of("SLIME4J_ENDPOINT_QPS", "8", "SLIME4J_ENDPOINT_IO_SLOTS", "32",
                "SLIME4J_ENDPOINT_MESSAGE_SLOTS", "16");
        EndpointConfig c = EndpointConfig.builder().apply(props::getProperty, env).build();
        assertThat(c.qps()).isEqualTo(4); // the property wins
        assertThat(c.ioSlots()).isEqualTo(32);
        assertThat(c.messageSlots()).isEqualTo(16);
        assertThat(c.slotTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThatThrownBy(() -> EndpointConfig.builder().apply(k -> k.endsWith("qps") ? "four" : null, Map.of()))
                .hasMessageContaining("qps must be an integer");
    }

    @Test
    void signalEveryIsConfigurableByCodePropertyAndEnvironmentAndCappedAtHalfTheSendQueue() {
        assertThat(EndpointConfig.defaults().signalEvery()).isEqualTo(EndpointConfig.DEFAULT_SIGNAL_EVERY);
        assertThat(EndpointConfig.builder().signalEvery(5).build().signalEvery()).isEqualTo(5);
        assertThat(EndpointConfig.builder().signalEvery(5).build().toBuilder().build().signalEvery()).isEqualTo(5);
        Properties props = new Properties();
        props.setProperty("slime4j.endpoint.signalEvery", "7");
        assertThat(EndpointConfig.builder().apply(props::getProperty, Map.of("SLIME4J_ENDPOINT_SIGNAL_EVERY", "9"))
                .build().signalEvery()).isEqualTo(7);
        assertThat(EndpointConfig.builder().apply(k -> null, Map.of("SLIME4J_ENDPOINT_SIGNAL_EVERY", "9"))
                .build().signalEvery()).isEqualTo(9);
        assertThatThrownBy(() -> EndpointConfig.builder().signalEvery(0).build())
                .hasMessageContaining("signalEvery must be in 1..");
        assertThatThrownBy(() -> EndpointConfig.builder().apply(k -> k.endsWith("signalEvery") ? "x" : null, Map.of()))
                .hasMessageContaining("signalEvery must be an integer");
        // the queue can never fill with unsignaled requests: N <= depth / 2 (and at least 1)
        assertThat(IoSendQueue.effectiveEvery(16, 1024)).isEqualTo(16);
        assertThat(IoSendQueue.effectiveEvery(1000, 64)).isEqualTo(32);
        assertThat(IoSendQueue.effectiveEvery(16, 3)).isEqualTo(1);
        assertThat(IoSendQueue.effectiveEvery(16, 1)).isEqualTo(1);
    }

    @Test
    void fromEnvironmentReturnsAConfigAsUdpConfigDoes() {
        System.setProperty("slime4j.endpoint.stripeMinBytes", "12345");
        try {
            EndpointConfig c = EndpointConfig.fromEnvironment();
            assertThat(c.stripeMinBytes()).isEqualTo(12345);
            assertThat(c.toBuilder().qps(2).build().stripeMinBytes()).as("adjusted in code").isEqualTo(12345);
        } finally {
            System.clearProperty("slime4j.endpoint.stripeMinBytes");
        }
        assertThat(EndpointConfig.fromEnvironment().stripeMinBytes())
                .isEqualTo(EndpointConfig.defaults().stripeMinBytes());
    }

    @Test
    void theKeepaliveDefaultsToTwoSeconds_isSetByCodeOrEnvironment_andZeroTurnsItOff() {
        EndpointConfig d = EndpointConfig.defaults();
        assertThat(d.keepalive()).isEqualTo(Duration.ofSeconds(2));
        assertThat(d.qpTemplate().retryCount()).isEqualTo(EndpointConfig.DEFAULT_RETRY_COUNT);
        assertThat(EndpointConfig.builder().keepalive(Duration.ZERO).build().keepalive()).isZero();
        assertThat(EndpointConfig.builder().apply(k -> null, Map.of("SLIME4J_ENDPOINT_KEEPALIVE", "PT0.5S")).build()
                .keepalive()).isEqualTo(Duration.ofMillis(500));
        assertThatThrownBy(() -> EndpointConfig.builder().keepalive(Duration.ofMillis(5)).build())
                .hasMessageContaining("keepalive must be zero (off) or in 10 ms..1 h");
        assertThatThrownBy(() -> EndpointConfig.builder().keepalive(Duration.ofSeconds(-1)).build())
                .hasMessageContaining("keepalive");
        assertThatThrownBy(() -> EndpointConfig.builder().keepalive(null).build()).hasMessageContaining("keepalive");
    }

    @Test
    void theDetectionBoundIsTheKeepalivePlusThePollPlusTheRetryBudget() {
        // 100 ms ACK timeout, 4 retries: 100 + 200 + 400 + 800 + 1600 ms
        assertThat(EndpointConfig.retryBudget(io.slime4j.verbs.QpConfig.builder().retryCount(4).build()))
                .isEqualTo(Duration.ofMillis(3100));
        // the default, the verbs default of 7 retries: the backoff stops doubling at 32 times (12.7 s)
        assertThat(EndpointConfig.retryBudget(EndpointConfig.defaults().qpTemplate())).isEqualTo(Duration.ofMillis(12_700));
        assertThat(EndpointConfig.defaults().detectionBound()).isEqualTo(Duration.ofMillis(2000 + 100 + 12_700));
    }

    @Test
    void theKeepaliveDeadlineIsOffByDefault_isSetByCodeOrEnvironment_andIsValidated() {
        assertThat(EndpointConfig.defaults().keepaliveDeadline()).isZero();
        assertThat(EndpointConfig.builder().keepaliveDeadline(Duration.ofSeconds(4)).build().keepaliveDeadline())
                .isEqualTo(Duration.ofSeconds(4));
        assertThat(EndpointConfig.builder().keepaliveDeadline(Duration.ofSeconds(4)).build().toBuilder().build()
                .keepaliveDeadline()).as("kept by toBuilder").isEqualTo(Duration.ofSeconds(4));
        assertThat(EndpointConfig.builder().apply(k -> null, Map.of("SLIME4J_ENDPOINT_KEEPALIVE_DEADLINE", "PT3S")).build()
                .keepaliveDeadline()).isEqualTo(Duration.ofSeconds(3));
        assertThat(EndpointConfig.builder().apply(k -> k.equals("slime4j.endpoint.keepaliveDeadline") ? " PT6S " : null,
                Map.of()).build().keepaliveDeadline()).isEqualTo(Duration.ofSeconds(6));
        assertThatThrownBy(() -> EndpointConfig.builder().keepaliveDeadline(Duration.ofMillis(5)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keepaliveDeadline must be zero (off) or in 10 ms..1 h, was PT0.005S");
        assertThatThrownBy(() -> EndpointConfig.builder().keepaliveDeadline(Duration.ofHours(2)).build())
                .hasMessageContaining("keepaliveDeadline must be zero (off) or in 10 ms..1 h");
        assertThatThrownBy(() -> EndpointConfig.builder().keepaliveDeadline(Duration.ofSeconds(-1)).build())
                .hasMessageContaining("keepaliveDeadline must be zero (off)");
        assertThatThrownBy(() -> EndpointConfig.builder().keepaliveDeadline(null).build())
                .hasMessageContaining("keepaliveDeadline must be zero (off)");
        assertThatThrownBy(() -> EndpointConfig.builder().keepalive(Duration.ZERO).keepaliveDeadline(Duration.ofSeconds(4))
                .build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keepaliveDeadline (PT4S)").hasMessageContaining("needs keepalive on");
        assertThatThrownBy(() -> EndpointConfig.builder()
                .apply(k -> null, Map.of("SLIME4J_ENDPOINT_KEEPALIVE_DEADLINE", "4s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keepaliveDeadline must be an ISO-8601 duration such as PT4S, was '4s'");
    }

    @Test
    void withAKeepaliveDeadlineTheBoundTakesTheShorterOfTheRetryBudgetAndTheDeadline() {
        EndpointConfig on = EndpointConfig.builder().keepaliveDeadline(Duration.ofSeconds(4)).build();
        // keepalive + poll + (deadline + poll): 6.2 s instead of 14.8 s
        assertThat(on.detectionBound()).isEqualTo(Duration.ofMillis(2000 + 100 + 4000 + 100));
        assertThat(EndpointConfig.builder().keepaliveDeadline(Duration.ofSeconds(20)).build().detectionBound())
                .as("a deadline longer than the retry budget: the retries come first")
                .isEqualTo(Duration.ofMillis(2000 + 100 + 12_700));
        assertThat(EndpointConfig.builder().keepaliveDeadline(Duration.ZERO).build().detectionBound())
                .as("off: as without it").isEqualTo(EndpointConfig.defaults().detectionBound());
        assertThat(EndpointConfig.builder().keepalive(Duration.ZERO).build().detectionBound())
                .as("no keepalive, no deadline: the retry budget and a poll").isEqualTo(Duration.ofMillis(100 + 12_700));
    }
}
