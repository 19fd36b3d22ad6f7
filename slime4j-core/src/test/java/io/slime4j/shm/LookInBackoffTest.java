package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LookInBackoffTest {

    @Test
    void parksDoubleUpToTheCapAndStartShortAgainAfterAReset() {
        LookInBackoff b = new LookInBackoff(50_000, 200_000);
        assertThat(new long[] {b.next(), b.next(), b.next(), b.next(), b.next()})
                .containsExactly(50_000, 100_000, 200_000, 200_000, 200_000);
        b.reset();
        assertThat(b.next()).isEqualTo(50_000);
        assertThat(b.next()).isEqualTo(100_000);
    }

    @Test
    void aCapThatIsNotAPowerOfTwoOfTheFirstParkIsStillTheLongest() {
        LookInBackoff b = new LookInBackoff(50_000, 120_000);
        assertThat(new long[] {b.next(), b.next(), b.next()}).containsExactly(50_000, 100_000, 120_000);
    }

    @Test
    void boundsOutOfOrderAreRefused() {
        assertThatThrownBy(() -> new LookInBackoff(0, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LookInBackoff(20, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LookInBackoff(1, Long.MAX_VALUE)).isInstanceOf(IllegalArgumentException.class);
    }
}
