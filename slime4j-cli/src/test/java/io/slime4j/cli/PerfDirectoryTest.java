package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code slime4j perf --directory}: a server process serving as engine B and a client process as
 * engine A, which find each other through a real directory (the embedded one, a real
 * {@code redis-server} and {@code etcd}) and move every byte through their transfer engines; and the one-line
 * errors of wrong input.
 */
class PerfDirectoryTest {
    private static final String SERVING = "slime4j perf: engine B serving at ";

    @TempDir
    Path folder;

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static List<Map<String, String>> rows(CliProcess p) {
        return p.out().stream().filter(l -> l.startsWith("{")).map(Json::object).toList();
    }

    /** Serves as B in {@code url}, runs A against it with {@code test}; both must exit 0. Returns the client's stdout. */
    private static List<String> serveAndRun(String url, String... test) throws Exception {
        try (CliProcess server = CliProcess.start("perf", "--server", "--directory", url, "--name", "B")) {
            server.awaitOut(l -> l.startsWith(SERVING), 60);
            String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("perf", "--directory", url, "--name", "A",
                    "--peer", "B"), java.util.stream.Stream.of(test)).toArray(String[]::new);
            try (CliProcess client = CliProcess.start(args)) {
                assertThat(client.exit(150)).as(client.transcript()).isZero();
                assertThat(server.exit(30)).as(server.transcript()).isZero();
                assertThat(server.out()).as(server.transcript()).contains("slime4j perf: engine A connected",
                        "slime4j perf: run finished");
                return client.out();
            }
        }
    }

    @Test
    @Timeout(240)
    void twoProcessesFindEachOtherInTheEmbeddedDirectoryAndEveryByteIsVerifiedInTheUsualTable() throws Exception {
        String url = "file:" + folder;
        List<String> out = serveAndRun(url, "--verify", "--sizes", "1K:16K", "--iters", "20", "--depth", "4");
        String all = String.join("\n", out);
        assertThat(all).contains("RDMA_Write BW Test", "engine A to engine B found in " + url, "BW average[MB/sec]");
        List<String> rows = out.stream().filter(l -> l.matches(" \\d+ +20 .*")).toList();
        assertThat(rows).as(all).hasSize(5).allSatisfy(r -> assertThat(r).endsWith(" yes"));
        assertThat(run("peers", "--directory", url).out()).as("both engines unpublished at the end").isEmpty();
    }

    @ParameterizedTest(name = "--op {0}")
    @ValueSource(strings = {"read", "write-imm", "send"})
    @Timeout(240)
    void everyOperationIsVerifiedBetweenEnginesOfTheEmbeddedDirectory(String op) throws Exception {
        List<String> out = serveAndRun("file:" + folder, "--op", op, "--verify", "--json", "--sizes", "64:64K",
                "--iters", "20", "--depth", "4");
        assertThat(out.stream().filter(l -> l.startsWith("{")).map(Json::object).toList()).as(String.join("\n", out))
                .hasSize(11).allSatisfy(r -> assertThat(r).containsEntry("op", op).containsEntry("verified", "true")
                        .containsEntry("wire", "udp"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"redis", "etcd"})
    @Timeout(240)
    void twoProcessesFindEachOtherInARealDirectoryServerAndEveryByteIsVerified(String kind) throws Exception {
        try (DirectoryServer server = DirectoryServer.start(kind)) {
            List<String> out = serveAndRun(server.url(), "--verify", "--json", "--sizes", "4K:64K", "--iters", "20",
                    "--mode", "bw");
            assertThat(out.stream().filter(l -> l.startsWith("{")).map(Json::object).toList()).as(String.join("\n", out))
                    .hasSize(5).allSatisfy(r -> assertThat(r).containsEntry("verified", "true"));
            assertThat(run("peers", "--directory", server.url()).out()).as("both engines unpublished at the end")
                    .isEmpty();
        }
    }

    @Test
    @Timeout(120)
    void aClientKilledMidRunEndsTheServerWithOneLine() throws Exception {
        String url = "file:" + folder;
        try (CliProcess server = CliProcess.start("perf", "--server", "--directory", url, "--name", "B")) {
            server.awaitOut(l -> l.startsWith(SERVING), 60);
            try (CliProcess client = CliProcess.start("perf", "--directory", url, "--name", "A", "--peer", "B",
                    "--size", "64K", "--iters", "100000000")) {
                client.awaitOut(l -> l.contains("#iterations"), 60); // the row has started
                Thread.sleep(1_000);
                client.kill();
            }
            assertThat(server.exit(60)).as(server.transcript()).isEqualTo(1);
            assertThat(server.err().stream().filter(l -> l.startsWith("slime4j perf: "))).as(server.transcript())
                    .singleElement().asString().startsWith("slime4j perf: the client engine A went away mid-run");
        }
    }

    @Test
    @Timeout(120)
    void aClientAskingForOtherQueuePairsIsRefusedByTheServersEngineSayingWhy() throws Exception {
        String url = "file:" + folder;
        try (CliProcess server = CliProcess.start("perf", "--server", "--directory", url, "--name", "B")) {
            server.awaitOut(l -> l.startsWith(SERVING), 60);
            try (CliProcess client = CliProcess.start("perf", "--directory", url, "--name", "A", "--peer", "B",
                    "--qps", "2", "--size", "4K", "--iters", "10", "--timeout", "10")) {
                assertThat(client.exit(60)).as(client.transcript()).isEqualTo(1);
                assertThat(client.err().stream().filter(l -> l.startsWith("slime4j perf: "))).as(client.transcript())
                        .singleElement().asString().contains("peer B refused the connection", "io queue pairs");
            }
            assertThat(server.out()).as("the server still waits for a client that fits").doesNotContain(
                    "slime4j perf: run finished");
        }
    }

    @Test
    @Timeout(60)
    void aPeerNotInTheDirectoryFailsWithinTheTimeoutNamingItAndTheDirectory() {
        long t0 = System.nanoTime();
        Run r = run("perf", "--directory", "file:" + folder, "--name", "A", "--peer", "B", "--timeout", "1");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().lines()).singleElement().asString()
                .startsWith("slime4j perf: no engine 'B' in directory file:" + folder + " within 1 s");
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(20);
    }

    @Test
    @Timeout(60)
    void anUnreachableDirectoryIsOneLineNamingItOnEitherSide() throws Exception {
        String url = "redis://127.0.0.1:" + DirectoryServer.freePort();
        for (Run r : List.of(run("perf", "--directory", url, "--name", "A", "--peer", "B", "--timeout", "2"),
                run("perf", "--server", "--directory", url, "--name", "B", "--timeout", "2"))) {
            assertThat(r.code()).as(r.err()).isEqualTo(1);
            assertThat(r.err().lines()).singleElement().asString().startsWith("slime4j perf: directory " + url + ": ");
        }
    }

    @Test
    @Timeout(60)
    void badDirectoryOptionsAreOneLineNamingWhatWasWrongAndExitCode2() {
        String url = "file:" + folder;
        Map<List<String>, String> cases = Map.of(
                List.of("perf", "--name", "A"), "--name needs --directory URL",
                List.of("perf", "--peer", "B"), "--peer needs --directory URL",
                List.of("perf", "--directory", url, "--peer", "B"), "--directory needs --name NAME",
                List.of("perf", "--directory", url, "--name", "A"), "--directory needs --peer NAME",
                List.of("perf", "--directory", "zookeeper://h:1", "--name", "A", "--peer", "B"), "unknown scheme 'zookeeper'",
                List.of("perf", "--directory", url, "--name", "A", "--peer", "B", "--connect", "h:1"),
                "--connect cannot be combined with --directory",
                List.of("perf", "--server", "--directory", url, "--name", "B", "--peer", "A"), "--peer is the client's",
                List.of("perf", "--directory", url, "--name", "A", "--peer", "A"), "--peer names the other engine",
                List.of("perf", "--directory", url, "--name", "A b", "--peer", "B"), "--name: an engine name is",
                List.of("perf", "--directory", url, "--name", "A", "--peer", "B", "--bind", "0.0.0.0"),
                "--bind with --directory is the address published");
        cases.forEach((args, message) -> {
            Run r = run(args.toArray(String[]::new));
            assertThat(r.code()).as(args + ": " + r.err()).isEqualTo(2);
            assertThat(r.err().lines()).as(args.toString()).singleElement().asString().startsWith("slime4j perf: ")
                    .contains(message).endsWith("(see: slime4j perf --help)");
            assertThat(r.out()).isEmpty();
        });
    }
}
