package io.slime4j.wire.inproc;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FaultConfigTest {

    @Test
    void theDefaultsInjectNothing() {
        FaultConfig none = FaultConfig.builder().build();

        assertThat(none).isEqualTo(FaultConfig.NONE);
        assertThat(none.injectsFaults()).isFalse();
        assertThat(none.maxReorderDelay()).isEqualTo(Duration.ofNanos(200_000));
        assertThat(none.delay()).isZero();
        assertThat(FaultConfig.builder().seed(99).build().injectsFaults()).isFalse();
    }

    @Test
    void anyPositiveRateOrDelayInjectsFaults() {
        assertThat(FaultConfig.builder().dropRate(0.01).build().injectsFaults()).isTrue();
        assertThat(FaultConfig.builder().duplicateRate(0.01).build().injectsFaults()).isTrue();
        assertThat(FaultConfig.builder().reorderRate(0.01).build().injectsFaults()).isTrue();
        assertThat(FaultConfig.builder().delay(Duration.ofNanos(1)).build().injectsFaults()).isTrue();
    }

    @Test
    void rejectsRatesOutsideZeroToOne() {
        assertThatThrownBy(() -> FaultConfig.builder().dropRate(1.5).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dropRate");
        assertThatThrownBy(() -> FaultConfig.builder().duplicateRate(-0.1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicateRate");
        assertThatThrownBy(() -> FaultConfig.builder().reorderRate(Double.NaN).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reorderRate");
    }

    @Test
    void rejectsNegativeMissingOrHugeDurations() {
        assertThatThrownBy(() -> FaultConfig.builder().delay(Duration.ofNanos(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delay");
        assertThatThrownBy(() -> FaultConfig.builder().maxReorderDelay(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxReorderDelay");
        assertThatThrownBy(() -> FaultConfig.builder().delay(Duration.ofDays(2)).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reorderingNeedsAPositiveMaximumDelay() {
        assertThatThrownBy(() -> FaultConfig.builder().reorderRate(0.1).maxReorderDelay(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxReorderDelay");
        assertThat(FaultConfig.builder().maxReorderDelay(Duration.ZERO).build().maxReorderDelay()).isZero();
    }

    @Test
    void toBuilderKeepsEverySetting() {
        FaultConfig c = new FaultConfig(7, 0.1, 0.2, 0.3, Duration.ofMillis(1), Duration.ofMillis(2));

        assertThat(c.toBuilder().build()).isEqualTo(c);
        assertThat(c.toBuilder().dropRate(1.0).build().seed()).isEqualTo(7);
    }
}
