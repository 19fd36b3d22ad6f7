package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class RowResultTest {
    private static final PerfPlan.Row ROW = new PerfPlan.Row(PerfPlan.Op.WRITE, PerfPlan.Mode.LAT, 64, 1000, 0, 1);

    @Test
    void percentilesComeFromEveryRecordedOperationWithinATenthOfAPercent() {
        Histogram h = RowResult.histogram();
        for (int us = 1; us <= 1000; us++) {
            h.recordValue(us * 1_000L);
        }
        RowResult r = new RowResult(ROW, 1, "udp", Duration.ofMillis(500).toNanos(), h, false, new long[3]);

        assertThat(r.latencyMicros(0.5)).isCloseTo(500, within(0.5));
        assertThat(r.latencyMicros(0.99)).isCloseTo(990, within(1.0));
        assertThat(r.latencyMicros(0.999)).isCloseTo(999, within(1.0));
        assertThat(r.maxLatencyMicros()).isCloseTo(1000, within(1.0));
        assertThat(r.messagesPerSecond()).isCloseTo(2000, within(1e-6));
        assertThat(r.toJson()).contains("\"latP50us\":500.", "\"latMaxUs\":1000.");
    }

    @Test
    void aRowWithoutTimedOperationsReportsZeroLatencies() {
        RowResult r = new RowResult(ROW, 1, "udp", 1, RowResult.histogram(), false, new long[3]);

        assertThat(r.latencyMicros(0.5)).isZero();
        assertThat(r.maxLatencyMicros()).isZero();
    }
}
