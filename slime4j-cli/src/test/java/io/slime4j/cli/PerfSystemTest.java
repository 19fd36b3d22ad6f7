package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code slime4j perf} as a user runs it: separate processes (the command's own loopback server,
 * or a {@code --server} and a {@code --connect} process), real UDP, results read from stdout, errors
 * from stderr and the exit code.
 */
class PerfSystemTest {
    private static final String LISTENING = "slime4j perf: server listening on ";

    private static List<Map<String, String>> rows(CliProcess p) {
        return p.out().stream().filter(l -> l.startsWith("{")).map(Json::object).toList();
    }

    @Test
    @Timeout(300)
    void verifyJsonOverEverySizeFrom1ByteTo16MiBExitsZeroWithEveryRowVerified() throws Exception {
        try (CliProcess p = CliProcess.start("perf", "--verify", "--json", "--sizes", "1:16M")) {
            assertThat(p.exit(240)).as(p.transcript()).isZero();
            List<Map<String, String>> rows = rows(p);
            assertThat(rows).as(p.transcript()).hasSize(25);
            for (int i = 0; i < rows.size(); i++) {
                Map<String, String> row = rows.get(i);
                assertThat(row).containsEntry("op", "write").containsEntry("mode", "bw")
                        .containsEntry("bytes", Long.toString(1L << i)).containsEntry("verified", "true")
                        .containsKeys("iters", "depth", "qps", "MBps", "msgsPerSec", "latP50us", "latP99us", "latP999us",
                                "latMaxUs", "retransmits", "duplicates", "timeouts");
                double p50 = Double.parseDouble(row.get("latP50us"));
                double p99 = Double.parseDouble(row.get("latP99us"));
                double p999 = Double.parseDouble(row.get("latP999us"));
                assertThat(p50).as("latencies of %s", row).isPositive().isLessThanOrEqualTo(p99);
                assertThat(p999).as("latencies of %s", row).isGreaterThanOrEqualTo(p99)
                        .isLessThanOrEqualTo(Double.parseDouble(row.get("latMaxUs")));
                assertThat(Double.parseDouble(row.get("msgsPerSec"))).isPositive();
                assertThat(Double.parseDouble(row.get("MBps"))).isGreaterThanOrEqualTo(0);
            }
            assertThat(p.err()).as("nothing on stderr when it is not a terminal").isEmpty();
        }
    }

    @ParameterizedTest(name = "--op {0}")
    @ValueSource(strings = {"read", "write-imm", "send"})
    @Timeout(180)
    void everyOperationIsVerifiedBetweenTwoProcessesInBothModes(String op) throws Exception {
        try (CliProcess bw = CliProcess.start("perf", "--op", op, "--verify", "--json", "--sizes", "16:1M", "--iters", "32",
                "--depth", "8")) {
            assertThat(bw.exit(150)).as(bw.transcript()).isZero();
            assertThat(rows(bw)).hasSize(17).allSatisfy(r -> assertThat(r).containsEntry("op", op)
                    .containsEntry("verified", "true").containsEntry("depth", "8"));
        }
        try (CliProcess lat = CliProcess.start("perf", "--op", op, "--mode", "lat", "--verify", "--json", "--size", "64",
                "--iters", "200")) {
            assertThat(lat.exit(150)).as(lat.transcript()).isZero();
            assertThat(rows(lat)).singleElement().satisfies(r -> assertThat(r).containsEntry("mode", "lat")
                    .containsEntry("depth", "1").containsEntry("verified", "true"));
        }
    }

    @Test
    @Timeout(120)
    void theDefaultRunPrintsAPerftestStyleTable() throws Exception {
        try (CliProcess p = CliProcess.start("perf", "--iters", "100")) {
            assertThat(p.exit(100)).as(p.transcript()).isZero();
            String all = String.join("\n", p.out());
            assertThat(all).contains("RDMA_Write BW Test", "RDMA_Write Latency Test", "BW average[MB/sec]",
                    "t_p99.9[usec]", "two processes on loopback");
            assertThat(p.out().stream().filter(l -> l.matches(" \\d+ +100 .*"))).as(all).hasSize(11 + 1);
            assertThat(all).as("--iters given: no JIT warm-up row").doesNotContain("Warm-up");
        }
    }

    @Test
    @Timeout(120)
    void withTheDefaultCountsTheFirstRowRunsOnceUntimedFirstAndTheHeaderSaysSo() throws Exception {
        try (CliProcess p = CliProcess.start("perf", "--sizes", "4K:8K", "--verify")) {
            assertThat(p.exit(100)).as(p.transcript()).isZero();
            String all = String.join("\n", p.out());
            assertThat(p.out().stream().filter(l -> l.startsWith(" Warm-up "))).as(all)
                    .containsExactly(" Warm-up         : 262144 untimed write of 4 KiB first (the JIT), then each row's own warm-up");
            assertThat(p.out().stream().filter(l -> l.matches(" 4096 +20000 .* yes| 8192 +20000 .* yes"))).as(all).hasSize(2);
        }
    }

    @Test
    @Timeout(120)
    void busyPollIsTakenByBothProcessesAndTheHeaderSaysWhichProgressRan() throws Exception {
        try (CliProcess busy = CliProcess.start("perf", "--busy-poll", "--sizes", "4K:8K", "--iters", "200", "--verify")) {
            assertThat(busy.exit(100)).as(busy.transcript()).isZero();
            String all = String.join("\n", busy.out());
            assertThat(busy.out().stream().filter(l -> l.startsWith(" Progress "))).as(all).containsExactly(
                    " Progress        : busy-poll (both sides' progress threads spin when idle, a core each)");
            assertThat(busy.out().stream().filter(l -> l.matches(" (4096|8192) +200 .* yes"))).as(all).hasSize(2);
        }
        try (CliProcess lat = CliProcess.start("perf", "--mode", "lat", "--size", "64", "--iters", "300")) {
            assertThat(lat.exit(100)).as(lat.transcript()).isZero();
            String all = String.join("\n", lat.out());
            assertThat(all).contains(" Progress        : blocking (", "t_max[usec]");
            assertThat(lat.out().stream().filter(l -> l.matches(" 64 +300 .*"))).as(all).singleElement()
                    .satisfies(l -> {
                        String[] f = l.trim().split(" +");
                        double p50 = Double.parseDouble(f[2]);
                        double p99 = Double.parseDouble(f[3]);
                        double p999 = Double.parseDouble(f[4]);
                        double max = Double.parseDouble(f[5]);
                        assertThat(p50).isPositive();
                        assertThat(new double[] {p50, p99, p999, max}).as(l).isSorted();
                    });
        }
    }

    @Test
    @Timeout(120)
    void serverAndConnectRunOnLoopback() throws Exception {
        try (CliProcess server = CliProcess.start("perf", "--server", "--bind", "127.0.0.1", "--port", "0")) {
            String line = server.awaitOut(l -> l.startsWith(LISTENING), 60);
            String port = line.substring(LISTENING.length()).split("[: ]")[1];
            try (CliProcess client = CliProcess.start("perf", "--connect", "127.0.0.1:" + port, "--op", "send",
                    "--verify", "--json", "--sizes", "4K:256K", "--iters", "100", "--qps", "2")) {
                assertThat(client.exit(90)).as(client.transcript()).isZero();
                assertThat(rows(client)).hasSize(7).allSatisfy(r -> assertThat(r).containsEntry("verified", "true")
                        .containsEntry("qps", "2"));
            }
            assertThat(server.exit(30)).as(server.transcript()).isZero();
            assertThat(server.out()).contains("slime4j perf: run finished");
        }
    }

    @Test
    @Timeout(60)
    void aBadArgumentIsOneLineAndExitCode2() throws Exception {
        try (CliProcess p = CliProcess.start("perf", "--size", "12Q")) {
            assertThat(p.exit(30)).isEqualTo(2);
            assertThat(p.err()).containsExactly(
                    "slime4j perf: --size: not a size: '12Q' (examples: 4096, 64K, 16M) (see: slime4j perf --help)");
            assertThat(p.out()).isEmpty();
        }
    }

    @Test
    @Timeout(60)
    void anUnreachablePeerIsOneLineAndExitCode1() throws Exception {
        int port = freePort();
        try (CliProcess p = CliProcess.start("perf", "--connect", "127.0.0.1:" + port, "--timeout", "1")) {
            assertThat(p.exit(30)).isEqualTo(1);
            assertThat(p.err()).singleElement().asString()
                    .startsWith("slime4j perf: cannot reach 127.0.0.1:" + port + " within 1 s (connection refused");
        }
    }

    @Test
    @Timeout(60)
    void aPortInUseIsOneLineAndExitCode1() throws Exception {
        try (ServerSocket taken = new ServerSocket(0);
             CliProcess p = CliProcess.start("perf", "--server", "--port", Integer.toString(taken.getLocalPort()))) {
            assertThat(p.exit(30)).isEqualTo(1);
            assertThat(p.err()).singleElement().asString()
                    .startsWith("slime4j perf: port " + taken.getLocalPort() + " on 0.0.0.0 is in use");
        }
    }

    @Test
    @Timeout(120)
    void aServerKilledMidRunIsOneLineAndExitCode1() throws Exception {
        try (CliProcess server = CliProcess.start("perf", "--server", "--bind", "127.0.0.1", "--port", "0")) {
            String port = server.awaitOut(l -> l.startsWith(LISTENING), 60).substring(LISTENING.length()).split("[: ]")[1];
            try (CliProcess client = CliProcess.start("perf", "--connect", "127.0.0.1:" + port, "--size", "64K",
                    "--iters", "100000000")) {
                client.awaitOut(l -> l.contains("#iterations"), 60); // the table's header: the row has started
                Thread.sleep(1_000);
                server.kill();
                assertThat(client.exit(60)).as(client.transcript()).isEqualTo(1);
                assertThat(client.err()).singleElement().asString().startsWith(
                        "slime4j perf: the peer closed the connection during write 64 KiB (its process ended or was killed)");
            }
        }
    }

    @Test
    @Timeout(120)
    void aClientKilledMidRunEndsTheServerWithOneLineAndExitCode1() throws Exception {
        try (CliProcess server = CliProcess.start("perf", "--server", "--bind", "127.0.0.1", "--port", "0")) {
            String port = server.awaitOut(l -> l.startsWith(LISTENING), 60).substring(LISTENING.length()).split("[: ]")[1];
            try (CliProcess client = CliProcess.start("perf", "--connect", "127.0.0.1:" + port, "--op", "send",
                    "--size", "64K", "--iters", "100000000")) {
                client.awaitOut(l -> l.contains("#iterations"), 60);
                Thread.sleep(1_000);
                client.kill();
                assertThat(server.exit(60)).as(server.transcript()).isEqualTo(1);
                assertThat(server.err()).singleElement().asString().isEqualTo(
                        "slime4j perf: the client closed the connection mid-run (its process ended or was killed)");
            }
        }
    }

    @Test
    @Timeout(60)
    void anUnknownSelectorIsRefusedInOneLine() throws Exception {
        try (CliProcess p = CliProcess.start("perf", "--selector", "stripe")) {
            assertThat(p.exit(30)).isEqualTo(2);
            assertThat(p.err()).containsExactly("slime4j perf: unknown QP selector 'stripe'; known: single, round-robin,"
                    + " round-robin-all, striped (see: slime4j perf --help)");
        }
    }

    @Test
    @Timeout(90)
    void endpointsThatDoNotFitAreRefusedOnBothSidesInOneLine() throws Exception {
        try (CliProcess server = CliProcess.start(List.of(), Map.of("SLIME4J_ENDPOINT_MESSAGE_SLOTS", "8"), "perf",
                "--server", "--bind", "127.0.0.1", "--port", "0")) {
            String port = server.awaitOut(l -> l.startsWith(LISTENING), 60).substring(LISTENING.length()).split("[: ]")[1];
            try (CliProcess client = CliProcess.start("perf", "--connect", "127.0.0.1:" + port)) {
                assertThat(client.exit(60)).as(client.transcript()).isEqualTo(1);
                assertThat(client.err()).singleElement().asString()
                        .startsWith("slime4j perf: the server refused the run: peer perf-client has 64 message slots");
            }
            assertThat(server.exit(30)).as(server.transcript()).isEqualTo(1);
            assertThat(server.err()).singleElement().asString()
                    .startsWith("slime4j perf: the client's endpoint does not fit this one: peer perf-client has 64");
        }
    }

    @Test
    @Timeout(60)
    void infoNamesTheEnvironmentAsTheSourceOfASetting() throws Exception {
        try (CliProcess p = CliProcess.start(List.of(), Map.of("SLIME4J_UDP_RECEIVE_BUFFER_SIZE", "2m",
                "SLIME4J_ENDPOINT_QPS", "3"), "info")) {
            assertThat(p.exit(30)).as(p.transcript()).isZero();
            assertThat(String.join("\n", p.out()))
                    .containsPattern("slime4j.udp.receiveBufferSize +SLIME4J_UDP_RECEIVE_BUFFER_SIZE +2097152 +environment")
                    .containsPattern("slime4j.endpoint.qps +SLIME4J_ENDPOINT_QPS +3 +environment")
                    .containsPattern("slime4j.endpoint.ioSlots +SLIME4J_ENDPOINT_IO_SLOTS +256 +default");
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
