package io.slime4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The relay with real child JVMs: a peer that cannot run is reported as skipped with its reason. */
class PeerRunTest {
    private final CompareOptions options = CompareOptions.parse(new String[] {"--workloads", "rtt", "--round-trips",
            "100", "--rtt-warmup", "10", "--warmup", "0", "--timeout", "20"});

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aPeerWhoseLibraryCannotStartIsSkippedWithTheReason() throws Exception {
        Results results = new Results(List.of("jucx"));
        // without libucx the native part does not load; with it, an unknown transport fails ucp_init
        try (PeerRun run = new PeerRun("jucx", options, results, Map.of("UCX_TLS", "no-such-transport"))) {
            run.await(40);
        }
        assertThat(results.skipReason("jucx")).startsWith("JUCX/UCX not usable");
        assertThat(results.markdown(options)).contains("| 64 B round trip p50 | µs | skipped |");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aSideThatFailsIsSkippedWithItsErrorLine() throws Exception {
        Results results = new Results(List.of("bogus"));
        try (PeerRun run = new PeerRun("bogus", options, results)) {
            run.await(40);
        }
        assertThat(results.skipReason("bogus")).contains("exited with code").contains("unknown system bogus");
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void tcpRoundTripsArriveAsResultsThroughTheRelay() throws Exception {
        Results results = runTcp(options);
        assertThat(results.get("tcp", "rtt.p50")).isPositive();
        assertThat(results.get("tcp", "rtt.p999")).isGreaterThanOrEqualTo(results.get("tcp", "rtt.p50"));
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void tcpBandwidthWarmsUpForItsSecondsThenTimesOneRound() throws Exception {
        // the reader learns in-band how many warm-up rounds come: a miscount hangs (the bound) or misreads
        tcpBandwidthTakesAtLeast("0.5", "0", 500_000_000L);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void theMessageWorkloadsWarmUpForTheirSecondsAndReportOnlyTheTimedPass() throws Exception {
        // a warm pass's figure that leaked would be a second one for its metric, which skips the system
        CompareOptions warm = CompareOptions.parse(new String[] {"--workloads", "rate,rtt", "--rate-sizes", "32",
                "--messages", "1000", "--rate-warmup", "0", "--round-trips", "100", "--rtt-warmup", "0",
                "--warmup", "1", "--timeout", "20"});
        long started = System.nanoTime();
        Results results = runTcp(warm);
        assertThat(results.get("tcp", "rate.32")).isPositive();
        assertThat(results.get("tcp", "rtt.p50")).isPositive();
        assertThat(results.warmPasses("tcp")).as("untimed passes, reported by side b").isPositive();
        assertThat(results.markdown(warm)).contains("before the timed one (`--warmup`): NIO TCP " + results.warmPasses("tcp"));
        assertThat(System.nanoTime() - started).as("at least the warm-up's second").isGreaterThan(1_000_000_000L);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aBandwidthSizeThatBeginsBeforeTheWarmUpEndsWarmsUpUntilThen() throws Exception {
        tcpBandwidthTakesAtLeast("0.1", "4", 4_000_000_000L); // the --warmup's 4 s, not the --bw-warmup's 0.1
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aSystemRunWhileTheHostStoleTooMuchRunsAgainAndOnlyTheKeptRunCounts() throws Exception {
        CompareOptions o = CompareOptions.parse(new String[] {"--systems", "tcp", "--workloads", "rtt", "--round-trips",
                "100", "--rtt-warmup", "10", "--warmup", "0", "--timeout", "20", "--max-steal", "5"});
        ArrayDeque<HostCpu> cpu = StealGuardTest.readings(30, 2); // the first run lost 30% to the host, the second 2%
        Results results = Compare.run(o, cpu::poll);
        assertThat(cpu).as("two runs, each read before and after").isEmpty();
        assertThat(results.skipReason("tcp")).isNull(); // a second run's figures are not a second report of one run's
        assertThat(results.get("tcp", "rtt.p50")).isPositive();
        assertThat(results.notes()).anySatisfy(n -> assertThat(n).contains("tcp steal 2.0% (set aside: a run at steal 30.0%)"));
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aSystemThatFailedIsNotRunAgainWhateverTheHostStole() throws Exception {
        // far more round trips than a second holds: the run fails its bound
        CompareOptions o = CompareOptions.parse(new String[] {"--systems", "tcp", "--workloads", "rtt", "--round-trips",
                "100M", "--warmup", "0", "--timeout", "1"});
        ArrayDeque<HostCpu> cpu = StealGuardTest.readings(30, 30, 30);
        Results results = Compare.run(o, cpu::poll);
        assertThat(cpu).as("one run read, two left").hasSize(4);
        assertThat(results.skipReason("tcp")).contains("did not finish");
    }

    /** A TCP run of 64 KiB bandwidth with these warm-ups reports its figure and lasts at least {@code nanos}. */
    private static void tcpBandwidthTakesAtLeast(String bwWarmup, String warmup, long nanos) throws Exception {
        CompareOptions bw = CompareOptions.parse(new String[] {"--workloads", "bandwidth", "--bandwidth-sizes", "64K",
                "--bytes", "64M", "--bw-warmup", bwWarmup, "--warmup", warmup, "--timeout", "20"});
        long started = System.nanoTime();
        Results results = runTcp(bw);
        assertThat(results.get("tcp", "bw.65536")).isPositive();
        assertThat(System.nanoTime() - started).as("--bw-warmup %s, --warmup %s", bwWarmup, warmup).isGreaterThan(nanos);
    }

    /** One TCP run through the relay, which must not be skipped. */
    private static Results runTcp(CompareOptions o) throws Exception {
        Results results = new Results(List.of("tcp"));
        try (PeerRun run = new PeerRun("tcp", o, results)) {
            run.await(60);
        }
        assertThat(results.skipReason("tcp")).isNull();
        return results;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aRunPastItsBoundIsSkippedAndItsProcessesAreKilled() throws Exception {
        // two billion messages cannot finish within the bound of 9 s (1 s per workload it may have)
        CompareOptions endless = CompareOptions.parse(new String[] {"--systems", "tcp", "--workloads", "rate",
                "--rate-sizes", "1K", "--messages", "2000000000", "--timeout", "1"});
        Results results = new Results(List.of("tcp"));
        try (PeerRun run = new PeerRun("tcp", endless, results)) {
            run.await(endless.systemBoundSeconds());
        }
        assertThat(results.skipReason("tcp")).startsWith("did not finish within");
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().orElse("").contains(Side.class.getName()))).isEmpty();
    }
}
