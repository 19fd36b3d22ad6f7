package io.slime4j.bench;

import io.slime4j.verbs.Counter;
import io.slime4j.soft.SoftCounters;
import io.slime4j.soft.SoftCounter;
import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.endpoint.EndpointInfo;
import io.slime4j.endpoint.RdmaEndpoint;
import io.slime4j.endpoint.TransferFuture;
import io.slime4j.endpoint.TransferStatus;
import io.slime4j.soft.ProgressGroup;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.udp.UdpWire;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Multi-QP routing between two processes on loopback: {@link RdmaEndpoint#write} throughput over
 * the UDP wire for each message size with 1, 2 and 4 QPs (lanes), on one rail and on two rails (two
 * UDP sockets per side, driven by one shared progress thread per side, or with {@code --agents own}
 * by one thread per rail), side by side in one run. The configurations alternate round by round,
 * each round in fresh processes; it prints the best, median and lowest figure per configuration,
 * then every round's.
 *
 * <pre>
 * java -cp ... io.slime4j.bench.RoutingBench [--sizes 1M,16M] [--bytes 256M] [--depth 8] [--qps 1,2,4]
 *      [--rails 1,2] [--selector striped] [--mtu 60K] [--rounds 3] [--agents shared|own]
 * </pre>
 */
public final class RoutingBench {
    private RoutingBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--serve")) {
            serve(new Handshake(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), System.out),
                    Integer.parseInt(args[1]), Integer.parseInt(args[2]), Long.parseLong(args[3]),
                    Integer.parseInt(args[4]), args[5], args[6]);
            return;
        }
        Settings s;
        try {
            s = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("RoutingBench: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.out.printf("RoutingBench: %s written per size and configuration, %d writes outstanding, selector %s,"
                        + " mtu %d, %d rounds (configurations alternating, fresh processes each), progress agents: %s;"
                        + " two processes on loopback (UDP)%n",
                Options.format(s.bytes), s.depth, s.selector, s.mtu, s.rounds,
                s.agents.equals("shared") ? "one per process, shared by its rails" : "one per rail");
        Settings warm = Settings.parse(args); // one unmeasured pass so the first column does not pay for the JIT
        warm.bytes = Math.min(s.bytes, 64L << 20);
        warm.rounds = 1;
        run(warm, s.qps[s.qps.length - 1], s.rails[s.rails.length - 1]);
        // configurations alternate round by round, each round in fresh processes, so a burst of
        // load or a slow JIT hits every configuration alike; best and median over the rounds
        List<String> columns = new ArrayList<>();
        List<int[]> configs = new ArrayList<>();
        for (int rails : s.rails) {
            for (int qps : s.qps) {
                columns.add(qps + " QP" + (qps == 1 ? "" : "s") + "/" + rails + " rail" + (rails == 1 ? "" : "s"));
                configs.add(new int[] {qps, rails});
            }
        }
        double[][][] figures = new double[configs.size()][s.sizes.length][s.rounds];
        Settings once = Settings.parse(args);
        once.rounds = 1;
        for (int round = 0; round < s.rounds; round++) {
            for (int c = 0; c < configs.size(); c++) {
                double[] r = run(once, configs.get(c)[0], configs.get(c)[1]);
                for (int i = 0; i < s.sizes.length; i++) {
                    figures[c][i][round] = r[i];
                }
            }
        }
        StringBuilder head = new StringBuilder(String.format("%-16s", "size"));
        columns.forEach(c -> head.append(String.format(" %16s", c)));
        System.out.println(head + "   (MB/s)");
        for (int i = 0; i < s.sizes.length; i++) {
            for (String kind : new String[] {"best", "median", "min"}) {
                StringBuilder row = new StringBuilder(String.format("%-16s", Options.format(s.sizes[i]) + " " + kind));
                for (double[][] f : figures) {
                    double[] v = f[i].clone();
                    java.util.Arrays.sort(v);
                    double x = kind.equals("best") ? v[v.length - 1] : kind.equals("min") ? v[0] : v[v.length / 2];
                    row.append(String.format(" %16.1f", x));
                }
                System.out.println(row);
            }
        }
        System.out.println("every round, in the order run (MB/s):");
        for (int i = 0; i < s.sizes.length; i++) {
            for (int c = 0; c < configs.size(); c++) {
                StringBuilder row = new StringBuilder(String.format("  %-8s %-16s", Options.format(s.sizes[i]), columns.get(c)));
                for (double v : figures[c][i]) {
                    row.append(String.format(" %7.0f", v));
                }
                System.out.println(row);
            }
        }
    }

    private static EndpointConfig config(int qps, String selector, int mtu) {
        // on top of SLIME4J_ENDPOINT_* / -Dslime4j.endpoint.* (e.g. SLIME4J_ENDPOINT_STRIPE_MIN_BYTES); the child inherits them
        return EndpointConfig.fromEnvironment().toBuilder().qps(qps).selector(selector).slotTimeout(Duration.ofSeconds(60))
                .qpTemplate(QpConfig.builder().mtu(mtu).build()).build();
    }

    /** The rails of one side: devices on loopback sockets, sharing one progress thread or each with its own. */
    private static List<VerbsDevice> rails(UdpWire wire, int rails, String name, String agents) {
        ProgressGroup group = agents.equals("shared") ? ProgressGroup.create(name) : null;
        List<VerbsDevice> out = new ArrayList<>();
        for (int r = 0; r < rails; r++) {
            SoftConfig c = SoftConfig.builder().name(name + "-rail" + r).build();
            out.add(group == null ? SoftDevice.open(wire, "udp:127.0.0.1:0", c)
                    : SoftDevice.open(wire, "udp:127.0.0.1:0", c, group));
        }
        return out;
    }

    private static double[] run(Settings s, int qps, int rails) throws Exception {
        double[] best = new double[s.sizes.length];
        long region = (long) s.maxSize() * s.depth;
        List<VerbsDevice> devices = List.of();
        try (ChildProcess child = new ChildProcess(RoutingBench.class, "--serve", Integer.toString(qps),
                     Integer.toString(rails), Long.toString(region), Integer.toString(s.mtu), s.selector, s.agents);
             UdpWire wire = new UdpWire();
             Arena arena = Arena.ofShared()) {
            devices = rails(wire, rails, "bench", s.agents);
            try (RdmaEndpoint ep = RdmaEndpoint.open(devices, config(qps, s.selector, s.mtu))) {
                ep.register("src", arena.allocate(region, 4096));
                child.handshake.send("INFO " + ep.info().toJson());
                ep.connect(EndpointInfo.fromJson(child.handshake.expect("INFO")));
                child.handshake.expect("READY");
                for (int i = 0; i < s.sizes.length; i++) {
                    int count = (int) Math.max(1, s.bytes / s.sizes[i]);
                    writes(ep, s.sizes[i], Math.max(1, count / 4), s.depth); // warm-up
                    for (int k = 0; k < s.rounds; k++) {
                        long nanos = writes(ep, s.sizes[i], count, s.depth);
                        best[i] = Math.max(best[i], (double) s.sizes[i] * count / (nanos / 1e3));
                    }
                }
            }
        } finally {
            long retransmits = 0;
            long timeouts = 0;
            long drops = 0;
            for (VerbsDevice d : devices) {
                retransmits += d.counters().get(Counter.RETRANSMITS);
                timeouts += d.counters().get(Counter.TIMEOUTS);
                drops += SoftCounters.of(d).get(SoftCounter.SEND_DROPS);
                d.close();
            }
            System.out.printf("  %d QP(s) / %d rail(s), writer side: %d retransmitted, %d timeouts, %d send drops%n",
                    qps, rails, retransmits, timeouts, drops);
        }
        return best;
    }

    /** {@code count} writes of {@code size} bytes, {@code depth} outstanding; the elapsed nanoseconds. */
    private static long writes(RdmaEndpoint ep, int size, int count, int depth) throws InterruptedException {
        ArrayDeque<TransferFuture> inFlight = new ArrayDeque<>();
        long start = System.nanoTime();
        for (int n = 0; n < count; n++) {
            if (inFlight.size() == depth) {
                check(inFlight.poll());
            }
            long at = (long) (n % depth) * size;
            inFlight.add(ep.write(Assignment.local("src", at).remote("dst", at).length(size)));
        }
        while (!inFlight.isEmpty()) {
            check(inFlight.poll());
        }
        return System.nanoTime() - start;
    }

    private static void check(TransferFuture f) throws InterruptedException {
        TransferStatus st;
        try {
            st = f.await(Duration.ofSeconds(60));
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("a write did not complete within 60 s");
        }
        if (st != TransferStatus.SUCCESS) {
            throw new IllegalStateException("write " + st + ": " + f.failureMessage());
        }
    }

    private static void serve(Handshake h, int qps, int rails, long region, int mtu, String selector, String agents)
            throws Exception {
        List<VerbsDevice> devices = List.of();
        try (UdpWire wire = new UdpWire(); Arena arena = Arena.ofShared()) {
            devices = rails(wire, rails, "bench-peer", agents);
            try (RdmaEndpoint ep = RdmaEndpoint.open(devices, config(qps, selector, mtu))) {
                ep.register("dst", arena.allocate(region, 4096));
                EndpointInfo peer = EndpointInfo.fromJson(h.expect("INFO"));
                h.send("INFO " + ep.info().toJson());
                ep.connect(peer);
                h.send("READY");
                h.expect("QUIT");
            }
        } finally {
            for (VerbsDevice d : devices) {
                d.close();
            }
        }
    }

    /** Command-line settings, validated with one-line errors. */
    private static final class Settings {
        int[] sizes = {1 << 20, 16 << 20};
        long bytes = 256L << 20;
        int depth = 8;
        int[] qps = {1, 2, 4};
        int[] rails = {1, 2};
        String selector = "striped";
        int mtu = 60 << 10;
        int rounds = 3;
        String agents = "shared";

        static Settings parse(String[] args) {
            Settings s = new Settings();
            for (int i = 0; i < args.length; i += 2) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                if (v == null) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                try {
                    switch (args[i]) {
                        case "--sizes" -> s.sizes = Arrays.stream(v.split(",")).mapToInt(x -> (int) Options.size(x)).toArray();
                        case "--bytes" -> s.bytes = Options.size(v);
                        case "--depth" -> s.depth = Integer.parseInt(v);
                        case "--qps" -> s.qps = Arrays.stream(v.split(",")).mapToInt(x -> Integer.parseInt(x.trim())).toArray();
                        case "--rails" -> s.rails = Arrays.stream(v.split(",")).mapToInt(x -> Integer.parseInt(x.trim())).toArray();
                        case "--selector" -> s.selector = v;
                        case "--mtu" -> s.mtu = (int) Options.size(v);
                        case "--rounds" -> s.rounds = Integer.parseInt(v);
                        case "--agents" -> {
                            if (!v.equals("shared") && !v.equals("own")) {
                                throw new IllegalArgumentException("--agents must be shared or own, was '" + v + "'");
                            }
                            s.agents = v;
                        }
                        default -> throw new IllegalArgumentException("unknown option " + args[i]);
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(args[i] + " needs a number, was '" + v + "'");
                }
            }
            EndpointConfig.builder().selector(s.selector); // an unknown name fails here, with the known ones
            for (int q : s.qps) {
                if (q < 1 || q > EndpointConfig.MAX_QPS) {
                    throw new IllegalArgumentException("--qps values must be in 1.." + EndpointConfig.MAX_QPS + ", was " + q);
                }
            }
            for (int r : s.rails) {
                if (r < 1 || r > 8) {
                    throw new IllegalArgumentException("--rails values must be in 1..8, was " + r);
                }
            }
            if (s.depth < 1 || s.rounds < 1 || s.mtu < 256 || Arrays.stream(s.sizes).anyMatch(x -> x < 1)) {
                throw new IllegalArgumentException("--depth, --rounds and sizes must be positive, --mtu at least 256");
            }
            return s;
        }

        int maxSize() {
            return Arrays.stream(sizes).max().orElseThrow();
        }
    }
}
