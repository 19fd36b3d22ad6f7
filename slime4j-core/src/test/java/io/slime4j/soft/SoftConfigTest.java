package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A waiter's spin is a brief one: zero up to 10 ms, 50 µs by default; anything else is refused by name. */
class SoftConfigTest {
    @Test
    void theWaiterSpinDefaultsTo50MicrosecondsAndTakesZeroUpTo10Milliseconds() {
        assertThat(SoftConfig.defaults().waiterSpin()).isEqualTo(Duration.ofNanos(50_000));
        assertThat(SoftConfig.builder().waiterSpin(Duration.ZERO).build().waiterSpin()).isZero();
        assertThat(SoftConfig.builder().waiterSpin(Duration.ofMillis(10)).build().waiterSpin())
                .isEqualTo(Duration.ofMillis(10));
    }

    @Test
    void aNegativeOrLongerWaiterSpinIsRefusedByName() {
        assertThatThrownBy(() -> SoftConfig.builder().waiterSpin(Duration.ofNanos(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waiterSpin");
        assertThatThrownBy(() -> SoftConfig.builder().waiterSpin(Duration.ofMillis(11)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waiterSpin");
        assertThatThrownBy(() -> SoftConfig.builder().waiterSpin(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waiterSpin");
    }
}
