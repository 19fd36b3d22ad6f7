package io.slime4j.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link WriteBench} between two hosts on a 1,500-byte Ethernet: two network namespaces made here
 * (root only), joined by a veth pair at MTU 1500, with private addresses that exist only inside
 * them; removed at the end. Per round: slime4j RDMA writes and the NIO TCP stream on the same veth
 * (fresh processes each; slime4j first in even rounds, TCP first in odd ones, since on this VM a
 * phase runs faster right after another busy one), then, with {@code --faults}, slime4j again under 5% random
 * drop on both sides' input and duplication of 5% of the datagrams each side sends
 * ({@code iptables statistic}, {@code DROP} and {@code mangle TEE}; {@code --duplicate 1} duplicates
 * every datagram, as the figures before 2026-11-27 evening did; {@code 0} none). Prints each round and the medians:
 * slime4j / TCP, and faulted / clean. {@code --buffers} is {@link WriteBench}'s footprint, for both systems;
 * {@code --tcp iperf3} its TCP baseline (Debian's iperf3, server in the second namespace) instead of the NIO stream.
 *
 * <pre>
 * sudo java --enable-native-access=ALL-UNNAMED -cp ... io.slime4j.bench.VethBench
 *     [--sizes 64K,1M] [--bytes 128M] [--rounds 3] [--depth 16] [--buffers 1] [--tcp nio|iperf3] [--faults] [--duplicate 0.05]
 *     [--warmup 8] [--max-steal 5]
 * </pre>
 *
 * <p>{@code --max-steal} is {@link WriteBench}'s: a measured run during which the host stole more
 * than that percentage of the machine's CPU time is run again (at most twice), and every round
 * prints the steal it met.
 */
public final class VethBench {
    private static final long PID = ProcessHandle.current().pid();
    private static final String NS_A = "s4jbench-a-" + PID;
    private static final String NS_B = "s4jbench-b-" + PID;
    private static final String NET = "10.233." + (PID % 250) + ".";

    private VethBench() {}

    public static void main(String[] args) throws Exception {
        String sizes = "64K,1M";
        String bytes = "128M";
        String depth = "16";
        String buffers = "1";
        String tcpBaseline = "nio";
        String warmup = "8";
        String maxSteal = "5";
        int rounds = 3;
        boolean faults = false;
        double duplicate = 0.05;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sizes" -> sizes = args[++i];
                case "--bytes" -> bytes = args[++i];
                case "--depth" -> depth = args[++i];
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--buffers" -> buffers = args[++i];
                case "--warmup" -> {
                    warmup = args[++i];
                    CompareOptions.seconds("--warmup", warmup); // checked here, before the namespaces are made
                }
                case "--tcp" -> tcpBaseline = Options.tcpBaseline(args[++i]);
                case "--max-steal" -> {
                    maxSteal = args[++i];
                    Options.parse(new String[] {"--max-steal", maxSteal}); // checked here, before the namespaces are made
                }
                case "--faults" -> faults = true;
                case "--duplicate" -> {
                    duplicate = Double.parseDouble(args[++i]);
                    if (!(duplicate >= 0 && duplicate <= 1)) {
                        throw new IllegalArgumentException("--duplicate must be a probability in [0, 1], was " + args[i]);
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (!"0".equals(run("id", "-u").strip())) {
            throw new IllegalStateException("VethBench makes network namespaces: run it as root");
        }
        int n = sizes.split(",").length;
        double[][] slime = new double[n][rounds];
        double[][] tcp = new double[n][rounds];
        double[][] faulted = new double[n][rounds];
        Runtime.getRuntime().addShutdownHook(new Thread(VethBench::removeQuietly));
        HostCpu runStart = HostCpu.now();
        try {
            makeHosts();
            System.out.printf("VethBench: two namespaces, veth MTU 1500, %s per size, %s buffer(s) a side, %d rounds%s;"
                    + " load average %s%n", bytes, buffers, rounds, faults ? String.format(
                    ", then slime4j under 5%% drop + %s%% duplication", java.math.BigDecimal.valueOf(duplicate * 100)
                            .stripTrailingZeros().toPlainString()) : "", load());
            for (int r = 0; r < rounds; r++) {
                HostCpu roundStart = HostCpu.now();
                List<String> common = List.of("--sizes", sizes, "--bytes", bytes, "--depth", depth, "--buffers", buffers,
                        "--warmup", warmup, "--max-steal", maxSteal,
                        "--rounds", "1", "--tcp", tcpBaseline,
                        "--first", r % 2 == 0 ? "slime4j" : "tcp"); // a phase runs faster behind a busy one
                double[][] both = writeBench(common, "both");
                for (int i = 0; i < n; i++) {
                    slime[i][r] = both[i][0];
                    tcp[i][r] = both[i][1];
                }
                if (faults) {
                    addFaults(duplicate);
                    try {
                        double[][] f = writeBench(common, "slime4j");
                        for (int i = 0; i < n; i++) {
                            faulted[i][r] = f[i][0];
                        }
                    } finally {
                        removeFaults();
                    }
                }
                System.out.printf("round %d: slime4j %s, TCP %s%s MB/s; %s%n", r + 1, Arrays.toString(column(slime, r)),
                        Arrays.toString(column(tcp, r)), faults ? ", slime4j faulted " + Arrays.toString(column(faulted, r))
                                : "", HostCpu.describe(roundStart, HostCpu.now()));
            }
        } finally {
            removeQuietly();
        }
        System.out.printf("%-8s %14s %14s %8s %14s %18s %14s %14s%n", "size", "slime4j MB/s",
                Options.tcpName(tcpBaseline) + " MB/s", "ratio",
                "median ratio", "slime4j faulted", "faulted/clean", "median ratio");
        String[] names = sizes.split(",");
        for (int i = 0; i < n; i++) {
            double s = median(slime[i]);
            double t = median(tcp[i]);
            double f = median(faulted[i]);
            double[] vsTcp = new double[rounds];
            double[] vsClean = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                vsTcp[r] = slime[i][r] / tcp[i][r];
                vsClean[r] = faulted[i][r] / slime[i][r];
            }
            System.out.printf("%-8s %14.1f %14.1f %8.2f %14.2f %18s %14s %14s%n", names[i], s, t, s / t, median(vsTcp),
                    faults ? String.format("%.1f", f) : "-", faults ? String.format("%.2f", f / s) : "-",
                    faults ? String.format("%.2f", median(vsClean)) : "-");
        }
        System.out.println("(medians of the rounds, and medians of each round's ratio; load average at the end "
                + load() + "; " + HostCpu.describe(runStart, HostCpu.now()) + " over the whole run)");
    }

    private static double[] column(double[][] v, int r) {
        double[] c = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            c[i] = Math.round(v[i][r] * 10) / 10.0;
        }
        return c;
    }

    /** One {@link WriteBench} run in namespace a towards b; returns per size {slime4j, TCP} MB/s. */
    private static double[][] writeBench(List<String> common, String only) throws Exception {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", NS_A,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                WriteBench.class.getName(), "--host", NET + "1", "--peer-host", NET + "2", "--peer-netns", NS_B,
                "--only", only));
        command.addAll(common);
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<double[]> rows = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            boolean table = false;
            String line;
            while ((line = r.readLine()) != null) {
                System.out.println("  | " + line);
                if (line.startsWith("size ")) {
                    table = true;
                } else if (table && !line.isBlank()) {
                    String[] t = line.trim().split("\\s+");
                    rows.add(new double[] {Double.parseDouble(t[2]), Double.parseDouble(t[3])});
                }
            }
        }
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("WriteBench in " + NS_A + " failed (exit " + p.exitValue() + ")");
        }
        return rows.toArray(double[][]::new);
    }

    private static void makeHosts() throws Exception {
        run("ip", "netns", "add", NS_A);
        run("ip", "netns", "add", NS_B);
        run("ip", "link", "add", "s4jba", "netns", NS_A, "mtu", "1500", "type", "veth", "peer", "name", "s4jbb",
                "netns", NS_B, "mtu", "1500");
        for (String[] side : new String[][] {{NS_A, "s4jba", NET + "1"}, {NS_B, "s4jbb", NET + "2"}}) {
            run("ip", "netns", "exec", side[0], "ip", "link", "set", "lo", "up");
            run("ip", "netns", "exec", side[0], "ip", "addr", "add", side[2] + "/24", "dev", side[1]);
            run("ip", "netns", "exec", side[0], "ip", "link", "set", side[1], "up");
        }
    }

    /** 5% drop on both sides' input; a share {@code duplicate} of each side's datagrams sent twice (0: none). */
    private static void addFaults(double duplicate) throws Exception {
        for (String[] side : new String[][] {{NS_A, NET + "2"}, {NS_B, NET + "1"}}) {
            run("ip", "netns", "exec", side[0], "iptables", "-I", "INPUT", "-p", "udp", "-m", "statistic", "--mode",
                    "random", "--probability", "0.05", "-j", "DROP");
            List<String> tee = new ArrayList<>(List.of("ip", "netns", "exec", side[0], "iptables", "-t", "mangle", "-I",
                    "OUTPUT", "-p", "udp"));
            if (duplicate < 1) {
                tee.addAll(List.of("-m", "statistic", "--mode", "random", "--probability", Double.toString(duplicate)));
            }
            tee.addAll(List.of("-j", "TEE", "--gateway", side[1]));
            if (duplicate > 0) {
                run(tee.toArray(String[]::new));
            }
        }
    }

    private static void removeFaults() throws Exception {
        for (String ns : List.of(NS_A, NS_B)) {
            run("ip", "netns", "exec", ns, "iptables", "-F", "INPUT");
            run("ip", "netns", "exec", ns, "iptables", "-t", "mangle", "-F", "OUTPUT");
        }
    }

    private static synchronized void removeQuietly() {
        for (String ns : List.of(NS_A, NS_B)) {
            try {
                if (run("ip", "netns", "list").contains(ns)) {
                    run("ip", "netns", "delete", ns);
                }
            } catch (Exception e) {
                System.err.println("could not remove namespace " + ns + ": " + e.getMessage());
            }
        }
    }

    private static String load() {
        try {
            return java.nio.file.Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** Runs a command (bounded: 30 s); returns its output; throws on a non-zero exit. */
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
