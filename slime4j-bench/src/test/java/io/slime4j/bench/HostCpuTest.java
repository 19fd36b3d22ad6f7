package io.slime4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link HostCpu}: the fields of /proc/stat's aggregate line, the shares between two readings, and what it says when it cannot tell. */
class HostCpuTest {
    @Test
    void readsBusyIdleAndStealFromTheAggregateLine() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        HostCpu c = HostCpu.parse("cpu  100 2 30 500 7 1 10 50 0 0");
        assertThat(c.busy()).isEqualTo(100 + 2 + 30 + 1 + 10);
        assertThat(c.idle()).isEqualTo(500 + 7);
        assertThat(c.steal()).isEqualTo(50);
    }

    @Test
    void sharesAreOfTheTimeBetweenTwoReadings() {
        HostCpu start = HostCpu.parse("cpu  100 0 0 100 0 0 0 10 0 0");
        HostCpu end = HostCpu.parse("cpu  170 0 10 110 0 0 0 20 0 0"); // 80 busy, 10 idle, 10 stolen
        assertThat(end.stealSince(start)).isEqualTo(0.1);
        assertThat(end.busySince(start)).isEqualTo(0.8);
        assertThat(HostCpu.describe(start, end)).isEqualTo("host cpu 80% busy, steal 10.0%");
        assertThat(HostCpu.stealLabel(start, end)).isEqualTo("steal 10.0%");
    }

    @Test
    void saysUnknownWhenNothingCanBeSaid() {
        HostCpu c = HostCpu.parse("cpu  1 0 0 1 0 0 0 0 0 0");
        assertThat(HostCpu.describe(c, c)).as("no tick passed").isEqualTo("host cpu unknown");
        assertThat(HostCpu.describe(null, c)).isEqualTo("host cpu unknown");
        assertThat(HostCpu.stealLabel(c, null)).isEqualTo("steal ?");
        assertThat(HostCpu.parse("cpu  1 2 3 4 5 6 7").steal()).as("a kernel without the field").isZero();
    }

    @Test
    void refusesAnotherLine() {
        assertThatThrownBy(() -> HostCpu.parse("cpu0 1 2 3 4 5 6 7 8")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HostCpu.parse("cpu 1 2")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readsThisMachine() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("os.name").equals("Linux"), "/proc/stat is Linux's");
        HostCpu now = HostCpu.now();
        assertThat(now).isNotNull();
        assertThat(now.busy() + now.idle()).isPositive();
        assertThat(now.steal()).isNotNegative();
    }
}
