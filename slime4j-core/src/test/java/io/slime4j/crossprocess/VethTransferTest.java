package io.slime4j.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two hosts as on a real Ethernet: two network namespaces made here, joined by a veth pair at MTU
 * 1,500, with private addresses that exist only inside them. {@link TransferMain} runs in one and
 * its peer in the other: every opcode from 1 byte to 64 MiB, byte-exact, with the default settings
 * (the payload per packet from the path MTU, UDP GSO and GRO on the native backend). Checked: the
 * queue pairs chose 1,408-byte payloads, bursts left with GSO, and no datagram was IP-fragmented
 * (the kernel's fragmentation and reassembly counters in {@code /proc/net/snmp} of both namespaces
 * stay unchanged). Then the same under 5% random drop on both sides' input and duplication of 5%
 * of the datagrams each side sends ({@code iptables statistic} with {@code DROP} and with
 * {@code mangle TEE}; netem does not work here). A datagram is a whole GSO run on the veth, so
 * runs of up to 44 packets are lost and repeated at once.
 * Needs root: tagged {@code root}; a non-root run outside CI is skipped with a message, in CI it
 * fails.
 */
@Tag("root")
@Tag("slow")
class VethTransferTest {
    private static final String PREFIX = "10.231." + (ProcessHandle.current().pid() % 250) + ".";
    private static final String NS_A = "s4j-a-" + ProcessHandle.current().pid();
    private static final String NS_B = "s4j-b-" + ProcessHandle.current().pid();
    private static final String ADDRESS_A = PREFIX + "1";
    private static final String ADDRESS_B = PREFIX + "2";
    private static boolean made;

    @BeforeAll
    static void makeTwoHostsJoinedByAVethAtMtu1500() throws Exception {
        requireRootTools();
        run("ip", "netns", "add", NS_A);
        run("ip", "netns", "add", NS_B);
        made = true;
        run("ip", "link", "add", "s4jva", "netns", NS_A, "mtu", "1500", "type", "veth", "peer", "name", "s4jvb",
                "netns", NS_B, "mtu", "1500");
        for (String[] side : new String[][] {{NS_A, "s4jva", ADDRESS_A}, {NS_B, "s4jvb", ADDRESS_B}}) {
            inNs(side[0], "ip", "link", "set", "lo", "up");
            inNs(side[0], "ip", "addr", "add", side[2] + "/24", "dev", side[1]);
            inNs(side[0], "ip", "link", "set", side[1], "up");
        }
    }

    @AfterAll
    static void removeTheHosts() throws Exception {
        if (made) {
            run("ip", "netns", "delete", NS_A);
            run("ip", "netns", "delete", NS_B);
        }
    }

    @Test
    @Timeout(600)
    void everyOpFromOneByteToSixtyFourMebibytesIsByteExactAcrossTheVethWithoutIpFragmentation() throws Exception {
        Map<String, Long> beforeA = ipCounters(NS_A);
        Map<String, Long> beforeB = ipCounters(NS_B);

        String output = transfer();

        String port = line(output, "PORT ");
        assertThat(port).as("payload per packet from the path MTU 1500").contains("mtu=1408");
        assertThat(port).contains("gso on, gro on");
        assertThat(counter(port, "gsoSends")).as("GSO bursts sent: %s", port).isPositive();
        for (String ns : List.of(NS_A, NS_B)) {
            Map<String, Long> before = ns.equals(NS_A) ? beforeA : beforeB;
            Map<String, Long> after = ipCounters(ns);
            for (String c : List.of("FragCreates", "FragOKs", "FragFails", "ReasmReqds")) {
                assertThat(after.get(c) - before.get(c)).as("%s in %s: no datagram larger than the path MTU", c, ns)
                        .isZero();
            }
        }
    }

    @Test
    @Timeout(600)
    void underFivePercentDropAndDuplicationOnTheVethEveryOpStaysByteExact() throws Exception {
        for (String[] side : new String[][] {{NS_A, ADDRESS_B}, {NS_B, ADDRESS_A}}) {
            inNs(side[0], "iptables", "-I", "INPUT", "-p", "udp", "-m", "statistic", "--mode", "random",
                    "--probability", "0.05", "-j", "DROP");
            inNs(side[0], "iptables", "-t", "mangle", "-I", "OUTPUT", "-p", "udp", "-m", "statistic", "--mode",
                    "random", "--probability", "0.05", "-j", "TEE", "--gateway", side[1]);
        }
        try {
            String output = transfer();
            String result = line(output, "RESULT ");
            assertThat(counter(result, "retransmits")).as("retransmissions under 5%% drop: %s", result).isPositive();
            assertThat(counter(result, "duplicates")).as("duplicates under TEE: %s", result).isPositive();
            assertThat(inNs(NS_B, "iptables", "-L", "INPUT", "-v", "-n", "-x")).as("the kernel really dropped")
                    .containsPattern("(?m)^\\s*[1-9]\\d*\\s+\\d+\\s+DROP");
        } finally {
            for (String ns : List.of(NS_A, NS_B)) {
                inNs(ns, "iptables", "-F", "INPUT");
                inNs(ns, "iptables", "-t", "mangle", "-F", "OUTPUT");
            }
        }
    }

    /** Runs {@link TransferMain} in namespace a with its peer in b; returns its output, asserting exit 0. */
    private static String transfer() throws Exception {
        List<String> command = List.of("ip", "netns", "exec", NS_A,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                TransferMain.class.getName(), "--peer-netns", NS_B, "--peer-bind", "udp:" + ADDRESS_B + ":0",
                "--bind", "udp:" + ADDRESS_A + ":0", "--largest", Long.toString(64L << 20));
        Path log = java.nio.file.Files.createTempFile("slime4j-veth-", ".log");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            boolean exited = process.waitFor(540, TimeUnit.SECONDS);
            if (!exited) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            String output = java.nio.file.Files.readString(log);
            assertThat(exited).as("transfer finished within 540 s; output:\n%s", tail(output)).isTrue();
            assertThat(process.exitValue()).as("transfer exit code; output:\n%s", tail(output)).isZero();
            System.out.println("veth MTU 1500: " + line(output, "RESULT ") + "\n  " + line(output, "PORT ") + "\n  "
                    + output.lines().filter(l -> l.contains("two processes")).findFirst().orElse(""));
            return output;
        } finally {
            java.nio.file.Files.deleteIfExists(log);
        }
    }

    private static String tail(String output) {
        List<String> lines = output.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }

    private static String line(String output, String prefix) {
        return output.lines().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + prefix + "line in:\n" + tail(output)));
    }

    /** The counters of the {@code Ip:} lines of {@code /proc/net/snmp} in namespace {@code ns}. */
    private static Map<String, Long> ipCounters(String ns) throws Exception {
        List<String> ip = inNs(ns, "cat", "/proc/net/snmp").lines().filter(l -> l.startsWith("Ip: ")).toList();
        String[] names = ip.get(0).split("\\s+");
        String[] values = ip.get(1).split("\\s+");
        Map<String, Long> m = new HashMap<>();
        for (int i = 1; i < names.length; i++) {
            m.put(names[i], Long.parseLong(values[i]));
        }
        return m;
    }

    private static long counter(String line, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\b" + name + "=(\\d+)").matcher(line);
        if (!m.find()) {
            throw new AssertionError("no " + name + " in " + line);
        }
        return Long.parseLong(m.group(1));
    }

    private static void requireRootTools() throws IOException, InterruptedException {
        boolean ci = System.getenv("CI") != null;
        boolean root = "0".equals(run("id", "-u").strip());
        boolean tools = root && new ProcessBuilder("sh", "-c", "command -v ip && command -v iptables").start()
                .waitFor() == 0;
        if (!root || !tools) {
            String why = !root ? "needs root (network namespaces, veth and iptables)" : "needs the ip and iptables commands";
            if (ci) {
                fail("root-tagged test cannot run in CI: " + why);
            }
            Assumptions.abort(why + "; run as root, as CI does");
        }
    }

    private static String inNs(String ns, String... command) throws IOException, InterruptedException {
        String[] full = new String[command.length + 4];
        full[0] = "ip";
        full[1] = "netns";
        full[2] = "exec";
        full[3] = ns;
        System.arraycopy(command, 0, full, 4, command.length);
        return run(full);
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
