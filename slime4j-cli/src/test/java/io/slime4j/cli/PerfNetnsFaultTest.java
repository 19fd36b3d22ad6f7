package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code perf --server} and {@code perf --connect} inside a private network namespace where the
 * kernel drops 5% of UDP datagrams ({@code iptables ... statistic --probability 0.05 -j DROP}) and
 * duplicates every one ({@code iptables -t mangle ... -j TEE}): every row is still verified, and the
 * JSON shows the retransmissions and duplicates. Needs root: tagged {@code root}; a non-root run is
 * skipped with a message outside CI and fails in CI (env {@code CI} set).
 */
@Tag("root")
class PerfNetnsFaultTest {
    private static final String LISTENING = "slime4j perf: server listening on ";

    @Test
    @Timeout(400)
    void serverAndConnectVerifyEveryRowUnderKernelDropsAndDuplicationAndReportRetransmits() throws Exception {
        requireRootTools();
        String ns = "slime4j-perf-" + ProcessHandle.current().pid();
        run("ip", "netns", "add", ns);
        try {
            run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
            run("ip", "netns", "exec", ns, "iptables", "-I", "INPUT", "-p", "udp", "-m", "statistic",
                    "--mode", "random", "--probability", "0.05", "-j", "DROP");
            run("ip", "netns", "exec", ns, "iptables", "-t", "mangle", "-I", "OUTPUT", "-p", "udp", "-j", "TEE",
                    "--gateway", "127.0.0.1");
            List<String> inNs = List.of("ip", "netns", "exec", ns);
            try (CliProcess server = CliProcess.start(inNs, "perf", "--server", "--bind", "127.0.0.1", "--port", "0")) {
                String port = server.awaitOut(l -> l.startsWith(LISTENING), 60).substring(LISTENING.length())
                        .split("[: ]")[1];
                try (CliProcess client = CliProcess.start(inNs, "perf", "--connect", "127.0.0.1:" + port, "--verify",
                        "--json", "--sizes", "4K:256K", "--iters", "100", "--warmup", "5")) {
                    assertThat(client.exit(300)).as(client.transcript()).isZero();
                    List<Map<String, String>> rows = client.out().stream().filter(l -> l.startsWith("{"))
                            .map(Json::object).toList();
                    assertThat(rows).as(client.transcript()).hasSize(7)
                            .allSatisfy(r -> assertThat(r).containsEntry("verified", "true"));
                    long retransmits = rows.stream().mapToLong(r -> Long.parseLong(r.get("retransmits"))).sum();
                    long duplicates = rows.stream().mapToLong(r -> Long.parseLong(r.get("duplicates"))).sum();
                    System.out.println("perf in a network namespace, 5% drop + duplication: " + retransmits
                            + " retransmits, " + duplicates + " duplicates over " + rows.size() + " verified rows");
                    assertThat(retransmits).as("retransmissions under 5%% drop:\n%s", client.transcript()).isPositive();
                    assertThat(duplicates).as("duplicates under TEE duplication:\n%s", client.transcript()).isPositive();
                }
                assertThat(server.exit(30)).as(server.transcript()).isZero();
            }
            assertThat(run("ip", "netns", "exec", ns, "iptables", "-L", "INPUT", "-v", "-n", "-x"))
                    .as("the kernel really dropped datagrams").containsPattern("(?m)^\\s*[1-9]\\d*\\s+\\d+\\s+DROP");
        } finally {
            run("ip", "netns", "delete", ns);
        }
    }

    private static void requireRootTools() throws IOException, InterruptedException {
        boolean ci = System.getenv("CI") != null;
        boolean root = "0".equals(run("id", "-u").strip());
        boolean tools = root && new ProcessBuilder("sh", "-c", "command -v ip && command -v iptables").start()
                .waitFor() == 0;
        if (!root || !tools) {
            String why = !root ? "needs root (network namespaces and iptables)" : "needs the ip and iptables commands";
            if (ci) {
                fail("root-tagged test cannot run in CI: " + why);
            }
            Assumptions.abort(why + "; run as root, as CI does");
        }
    }

    /** Runs a command (bounded: 30 s) and returns its output; throws on a non-zero exit. */
    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + String.join(" ", command));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + out);
        }
        return out;
    }
}
