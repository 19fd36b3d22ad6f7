package io.slime4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class CompareOptionsTest {
    @Test
    void defaultsRunEverySystemAndWorkload() {
        CompareOptions o = CompareOptions.parse(new String[0]);
        assertThat(o.systems).containsExactly("slime4j", "slime4j-busy", "shm", "shm-busy", "aeron", "jucx", "tcp", "udp", "memcpy");
        assertThat(o.workloads).isEqualTo(EnumSet.allOf(Side.Workload.class));
        assertThat(o.rateSizes).containsExactly(32, 1024);
        assertThat(o.bandwidthSizes).containsExactly(64 << 10, 1 << 20, 16 << 20);
        assertThat(o.rttWarmup).isEqualTo(30_000);
    }

    @Test
    void bandwidthBuffersDefaultToTheWindowAndNeverExceedIt() {
        CompareOptions d = CompareOptions.parse(new String[0]);
        assertThat(d.buffers(64 << 10)).isEqualTo(16);
        assertThat(d.buffers(16 << 20)).isEqualTo(1);
        CompareOptions one = CompareOptions.parse(new String[] {"--bw-buffers", "1"});
        assertThat(one.buffers(64 << 10)).isEqualTo(1);
        assertThat(CompareOptions.parse(new String[] {"--bw-buffers", "4"}).buffers(8 << 20)).as("window 2").isEqualTo(2);
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--bw-buffers", "0"})).hasMessageContaining("--bw-buffers");
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--bw-buffers", "17"})).hasMessageContaining("1..16");
    }

    @Test
    void theRoundTripWarmUpIsACountOfItsOwnAndMayBeZero() {
        assertThat(CompareOptions.parse(new String[] {"--rtt-warmup", "2K"}).rttWarmup).isEqualTo(2048);
        assertThat(CompareOptions.parse(new String[] {"--rtt-warmup", "0"}).rttWarmup).isZero();
        assertThat(CompareOptions.parse(new String[] {"--rate-warmup", "1K"}).rateWarmup).isEqualTo(1024);
        assertThat(CompareOptions.parse(new String[] {}).rateWarmup).as("default").isEqualTo(100_000);
        assertThat(CompareOptions.parse(new String[] {"--bw-warmup", "0.5"}).bandwidthWarmupSeconds).isEqualTo(0.5);
        assertThat(CompareOptions.parse(new String[] {}).bandwidthWarmupSeconds).as("default").isEqualTo(2.0);
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--bw-warmup", "-1"}))
                .hasMessageContaining("--bw-warmup").hasMessageContaining("-1");
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--bw-warmup", "61", "--timeout", "120"}))
                .hasMessageContaining("--bw-warmup").hasMessageContaining("--timeout");
        assertThat(CompareOptions.parse(new String[] {"--timeout", "1"}).bandwidthWarmupSeconds)
                .as("the default, under a short --timeout").isEqualTo(0.5);
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--bw-warmup", "soon"}))
                .hasMessageContaining("--bw-warmup").hasMessageContaining("soon");
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--rtt-warmup", "-1"}))
                .hasMessageContaining("--rtt-warmup").hasMessageContaining("-1");
    }

    @Test
    void theStealBoundIsAPercentageOfTheMachine() {
        assertThat(CompareOptions.parse(new String[0]).maxSteal).as("default").isEqualTo(0.05);
        assertThat(CompareOptions.parse(new String[] {"--max-steal", "12.5"}).maxSteal).isEqualTo(0.125);
        assertThat(CompareOptions.parse(new String[] {"--max-steal", "100"}).maxSteal).as("every run kept").isEqualTo(1.0);
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--max-steal", "150"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--max-steal");
    }

    @Test
    void theWarmUpIsSecondsOfWholePassesAndCountsInTheBound() {
        CompareOptions d = CompareOptions.parse(new String[0]);
        assertThat(d.warmupSeconds).as("default").isEqualTo(10.0);
        assertThat(d.warmsUp()).isTrue();
        CompareOptions none = CompareOptions.parse(new String[] {"--warmup", "0"});
        assertThat(none.warmsUp()).isFalse();
        assertThat(none.systemBoundSeconds()).as("120 s for setup and each of 5 message and 3 bandwidth workloads")
                .isEqualTo(120 * 9);
        assertThat(d.systemBoundSeconds()).as("plus the warm-up's 10 s and one more pass of 5 message workloads")
                .isEqualTo(120 * 9 + 10 + 120 * 5);
        assertThat(CompareOptions.parse(new String[] {"--warmup", "5", "--workloads", "bandwidth"}).warmsUp())
                .as("no message workload to warm up").isFalse();
        assertThat(CompareOptions.parse(new String[] {"--warmup", "0.5"}).warmupSeconds).isEqualTo(0.5);
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--warmup", "-2"}))
                .hasMessageContaining("--warmup").hasMessageContaining("-2");
        CompareOptions bw = CompareOptions.parse(new String[] {"--warmup", "5", "--workloads", "bandwidth"});
        assertThat(bw.systemBoundSeconds()).as("a first bandwidth size may warm up for the 5 s").isEqualTo(120 * 9 + 5);
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--warmup", "61", "--timeout", "120"}))
                .hasMessageContaining("--warmup").hasMessageContaining("--timeout");
        assertThat(CompareOptions.parse(new String[] {"--timeout", "8"}).warmupSeconds)
                .as("the default, under a short --timeout").isEqualTo(4.0);
    }

    @Test
    void systemsKeepTableOrderAndSizesTakeUnits() {
        CompareOptions o = CompareOptions.parse(new String[] {"--systems", "udp,slime4j", "--bytes", "4G",
                "--bandwidth-sizes", "1K,2M", "--workloads", "rtt"});
        assertThat(o.systems).containsExactly("slime4j", "udp");
        assertThat(o.bytes).isEqualTo(4L << 30);
        assertThat(o.bandwidthSizes).containsExactly(1024, 2 << 20);
        assertThat(o.workloads).containsExactly(Side.Workload.RTT);
        assertThat(o.raw).containsExactly("--systems", "udp,slime4j", "--bytes", "4G", "--bandwidth-sizes", "1K,2M",
                "--workloads", "rtt");
    }

    @Test
    void badInputIsAOneLineErrorNamingTheOption() {
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--systems", "zeromq"}))
                .hasMessageContaining("--systems").hasMessageContaining("zeromq");
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--messages", "many"}))
                .hasMessageContaining("--messages").hasMessageContaining("many");
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--timeout"})).hasMessage("--timeout needs a value");
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--frobnicate", "1"}))
                .hasMessageContaining("unknown option --frobnicate");
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--rate-sizes", "4"}))
                .hasMessageContaining("--rate-sizes");
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--aeron-idle", "spin"}))
                .hasMessageContaining("--aeron-idle");
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--bandwidth-sizes", "64K,65536"}))
                .hasMessage("--bandwidth-sizes: each size once, was 64K,65536");
        assertThatThrownBy(() -> CompareOptions.parse(new String[] {"--warmup", "61"}))
                .hasMessageStartingWith("--warmup 61 s must be at most half of --timeout (120 s)");
    }

    @Test
    void windowKeepsAboutSixteenMebibytesInFlight() {
        assertThat(CompareOptions.window(64 << 10)).isEqualTo(16);
        assertThat(CompareOptions.window(1 << 20)).isEqualTo(16);
        assertThat(CompareOptions.window(16 << 20)).isEqualTo(1);
    }

    @Test
    void percentilesAreNearestRank() {
        long[] sorted = new long[1000];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = i + 1;
        }
        assertThat(Percentiles.of(sorted, 0.5)).isEqualTo(500);
        assertThat(Percentiles.of(sorted, 0.99)).isEqualTo(990);
        assertThat(Percentiles.of(sorted, 0.999)).isEqualTo(999);
        assertThat(Percentiles.of(new long[] {7}, 0.999)).isEqualTo(7);
    }
}
