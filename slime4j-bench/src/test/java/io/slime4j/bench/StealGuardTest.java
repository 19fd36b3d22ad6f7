package io.slime4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link StealGuard}: runs again while the host stole too much, at most so often, and says what it set aside. */
class StealGuardTest {
    /** CPU readings in order: each run reads one before and one after, 100 ticks apart, {@code stealPerRun} of them stolen. */
    static ArrayDeque<HostCpu> readings(long... stealPerRun) {
        ArrayDeque<HostCpu> q = new ArrayDeque<>();
        long busy = 0;
        long steal = 0;
        for (long s : stealPerRun) {
            q.add(new HostCpu(busy, 0, steal));
            busy += 100 - s; // 100 ticks a run, s of them stolen
            steal += s;
            q.add(new HostCpu(busy, 0, steal));
        }
        return q;
    }

    @Test
    void aRunTheCallerDoesNotJudgeCountsWhateverItsSteal() throws Exception {
        ArrayDeque<HostCpu> cpu = readings(30, 2);
        StealGuard.Kept<String> k = new StealGuard(0.05, 2, cpu::poll).keep(() -> "failed", r -> r, r -> false);
        assertThat(k.value()).isEqualTo("failed");
        assertThat(k.label()).isEqualTo("steal 30.0%");
        assertThat(cpu).as("not run again").hasSize(2);
    }

    @Test
    void aQuietRunCountsAtOnce() throws Exception {
        ArrayDeque<HostCpu> cpu = readings(2);
        StealGuard.Result r = new StealGuard(0.05, 2, cpu::poll).measure(() -> 1000.0, "MB/s");
        assertThat(r.value()).isEqualTo(1000.0);
        assertThat(r.label()).isEqualTo("steal 2.0%");
        assertThat(cpu).isEmpty();
    }

    @Test
    void aRunAboveTheBoundIsRunAgainAndSetAsideByName() throws Exception {
        ArrayDeque<HostCpu> cpu = readings(30, 3);
        ArrayDeque<Double> figures = new ArrayDeque<>(List.of(500.0, 1600.0));
        StealGuard.Result r = new StealGuard(0.05, 2, cpu::poll).measure(figures::poll, "MB/s");
        assertThat(r.value()).isEqualTo(1600.0);
        assertThat(r.label()).isEqualTo("steal 3.0% (set aside: 500.0 MB/s at steal 30.0%)");
    }

    @Test
    void whenEveryAllowedRunMetTooMuchTheLeastStolenCounts() throws Exception {
        ArrayDeque<HostCpu> cpu = readings(20, 10, 40);
        AtomicInteger runs = new AtomicInteger();
        StealGuard.Result r = new StealGuard(0.05, 2, cpu::poll).measure(() -> 100.0 * runs.incrementAndGet(), "MB/s");
        assertThat(runs).as("the first and two more").hasValue(3);
        assertThat(r.value()).isEqualTo(200.0);
        assertThat(r.label()).isEqualTo("steal 10.0% (set aside: 100.0 MB/s at steal 20.0%, 300.0 MB/s at steal 40.0%)");
    }

    @Test
    void unknownStealKeepsTheRunAndABoundOfOneKeepsEvery() throws Exception {
        StealGuard.Result r = new StealGuard(0.05, 2, () -> null).measure(() -> 7.0, "MB/s");
        assertThat(r.label()).isEqualTo("steal ?");
        ArrayDeque<HostCpu> cpu = readings(90);
        assertThat(new StealGuard(1.0, 2, cpu::poll).measure(() -> 8.0, "MB/s").value()).isEqualTo(8.0);
    }

    @Test
    void aRunTooShortForTheTicksToTellIsNotJudged() throws Exception {
        // 20 ticks, 2 stolen: 10% by the counts, but one tick of 20 is already 5%
        ArrayDeque<HostCpu> cpu = new ArrayDeque<>(List.of(new HostCpu(0, 0, 0), new HostCpu(18, 0, 2)));
        AtomicInteger runs = new AtomicInteger();
        StealGuard.Result r = new StealGuard(0.05, 2, cpu::poll).measure(() -> 100.0 * runs.incrementAndGet(), "MB/s");
        assertThat(runs).as("kept").hasValue(1);
        assertThat(r.label()).isEqualTo("steal 10.0%");
    }

    @Test
    void badBoundsAndOptionValuesAreOneLineErrors() {
        assertThatThrownBy(() -> new StealGuard(1.5, 2, HostCpu::now)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StealGuard(0.05, -1, HostCpu::now)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Options.parse(new String[0]).maxSteal).isEqualTo(0.05);
        assertThat(Options.parse(new String[] {"--max-steal", "12.5"}).maxSteal).isEqualTo(0.125);
        assertThatThrownBy(() -> Options.parse(new String[] {"--max-steal", "x"}))
                .hasMessage("--max-steal must be a percentage 0..100, was x");
        assertThatThrownBy(() -> Options.parse(new String[] {"--max-steal", "101"}))
                .hasMessage("--max-steal must be a percentage 0..100, was 101");
    }
}
