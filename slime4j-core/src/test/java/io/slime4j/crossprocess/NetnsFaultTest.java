package io.slime4j.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cross-process transfer (283 MiB of writes, reads, sends and writes with immediate, 1 B to
 * 16 MiB, both processes) inside a private network namespace where the kernel drops 5% of UDP
 * datagrams ({@code iptables ... statistic --probability 0.05 -j DROP}) and duplicates every one
 * ({@code iptables -t mangle ... -j TEE}). Needs root: tagged {@code root}; outside CI a non-root
 * run is skipped with a message, in CI (env {@code CI} set) it fails instead.
 */
@Tag("root")
@Tag("slow")
class NetnsFaultTest {

    @Test
    @Timeout(600)
    void theTransferIsByteExactUnderKernelDropsAndDuplicationInANetworkNamespace() throws Exception {
        requireRootTools();
        String ns = "slime4j-" + ProcessHandle.current().pid();
        run("ip", "netns", "add", ns);
        try {
            run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
            run("ip", "netns", "exec", ns, "iptables", "-I", "INPUT", "-p", "udp", "-m", "statistic",
                    "--mode", "random", "--probability", "0.05", "-j", "DROP");
            run("ip", "netns", "exec", ns, "iptables", "-t", "mangle", "-I", "OUTPUT", "-p", "udp", "-j", "TEE",
                    "--gateway", "127.0.0.1");

            List<String> command = List.of("ip", "netns", "exec", ns,
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g", "--enable-native-access=ALL-UNNAMED",
                    "-cp", System.getProperty("java.class.path"), TransferMain.class.getName());
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            List<String> output = new ArrayList<>();
            Thread reader = Thread.ofPlatform().daemon().start(() -> collect(process, output));
            boolean exited = process.waitFor(540, TimeUnit.SECONDS);
            if (!exited) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            reader.join(5_000);
            String log = String.join("\n", snapshot(output));
            assertThat(exited).as("transfer finished within 540 s; output:\n%s", log).isTrue();
            assertThat(process.exitValue()).as("transfer exit code; output:\n%s", log).isZero();

            String result = snapshot(output).stream().filter(l -> l.startsWith("RESULT ")).findFirst()
                    .orElseThrow(() -> new AssertionError("no RESULT line in:\n" + log));
            System.out.println("network namespace, 5% drop + duplication: " + result + "; "
                    + snapshot(output).stream().filter(l -> l.contains("two processes")).findFirst().orElse(""));
            assertThat(counter(result, "retransmits")).as("retransmissions under 5%% drop: %s", result).isPositive();
            assertThat(counter(result, "duplicates")).as("duplicates under TEE duplication: %s", result).isPositive();

            String drops = run("ip", "netns", "exec", ns, "iptables", "-L", "INPUT", "-v", "-n", "-x");
            assertThat(drops).as("the kernel really dropped datagrams").containsPattern("(?m)^\\s*[1-9]\\d*\\s+\\d+\\s+DROP");
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

    private static long counter(String result, String name) {
        for (String part : result.split(" ")) {
            if (part.startsWith(name + "=")) {
                return Long.parseLong(part.substring(name.length() + 1));
            }
        }
        throw new AssertionError("no " + name + " in " + result);
    }

    private static void collect(Process process, List<String> output) {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (output) {
                    output.add(line);
                }
            }
        } catch (IOException e) {
            synchronized (output) {
                output.add("(output ended: " + e + ")");
            }
        }
    }

    private static List<String> snapshot(List<String> output) {
        synchronized (output) {
            return new ArrayList<>(output);
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
