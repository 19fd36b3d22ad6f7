package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** RACK's reordering window (RFC 8985), fed round trips and reordering evidence by hand. */
class ReorderWindowTest {
    private final ReorderWindow w = new ReorderWindow();

    @Test
    void noWindowOnAPathNotSeenToReorderOnceInRecoveryOrThreeSegmentsWereSacked() {
        w.onRttSample(400_000);
        assertThat(w.nanos(false, ReorderWindow.DUP_THRESH, 500_000)).isZero();
        assertThat(w.nanos(true, 0, 500_000)).isZero();
        assertThat(w.nanos(false, ReorderWindow.DUP_THRESH - 1, 500_000)).as("a quarter of the smallest round trip")
                .isEqualTo(100_000);
    }

    @Test
    void onceThePathReorderedTheWindowIsAQuarterOfTheSmallestRoundTripBetweenItsFloorAndTheSmoothedOne() {
        w.onReordering();
        assertThat(w.reorderingSeen()).isTrue();
        assertThat(w.nanos(true, 10, 800_000)).as("no round trip yet: a quarter of the smoothed one").isEqualTo(200_000);
        w.onRttSample(2_000_000);
        w.onRttSample(1_200_000);
        assertThat(w.minRtt()).isEqualTo(1_200_000);
        assertThat(w.nanos(true, 10, 5_000_000)).isEqualTo(300_000);
        assertThat(w.nanos(true, 10, 200_000)).as("at most the smoothed round trip").isEqualTo(200_000);
        w.onRttSample(40_000);
        assertThat(w.nanos(true, 10, 5_000_000)).as("at least the floor").isEqualTo(ReorderWindow.MIN_NANOS);
    }
}
