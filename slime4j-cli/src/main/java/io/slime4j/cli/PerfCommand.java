package io.slime4j.cli;

import io.slime4j.endpoint.Bootstrap;
import io.slime4j.endpoint.BootstrapChannel;
import io.slime4j.endpoint.BootstrapListener;
import io.slime4j.endpoint.BootstrapException;
import io.slime4j.wire.Wire;
import io.slime4j.verbs.QpConfig;
import io.slime4j.wire.inproc.InprocWire;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code slime4j perf}: options, their validation, and which sides run where. */
@Command(name = "perf", sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Move data between two endpoints and show how fast (like perftest's ib_write_bw and ib_write_lat).",
            "",
            "With no options: a loopback run between two processes on this machine (this one and a server it starts): "
                    + "RDMA write bandwidth from 4 KiB to 4 MiB, then 64-byte write latency.",
            "",
            "Two hosts:",
            "  host A:  slime4j perf --server",
            "  host B:  slime4j perf --connect A:18515 [test options]",
            "The sides exchange endpoint info over a TCP side channel (io.slime4j.endpoint.Bootstrap), then move the "
                    + "data over the UDP wire. The client chooses the test; the server serves one run and exits.",
            "",
            "Through a directory (each side a TransferEngine that finds the other by name):",
            "  slime4j perf --server --directory URL --name B",
            "  slime4j perf --directory URL --name A --peer B [test options]",
            "URL: redis://HOST:PORT, etcd://HOST:PORT or file:/PATH (the embedded one, one host). Both sides need the "
                    + "same --qps.",
            ""},
        footer = {"",
            "bw rows keep --depth operations outstanding; MB/sec is 10^6 bytes per second of the timed operations. "
                    + "Latency is each operation's time from post to completion (a write completes when the peer "
                    + "acknowledged it: one round trip). retrans, dups and timeouts are the transport counters of both "
                    + "sides during the row.",
            "",
            "Settings of the wire and the endpoint (-Dslime4j... or SLIME4J_...): slime4j info.",
            "Exit codes: 0 done (and verified), 1 failed, 2 bad arguments."})
final class PerfCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DebugOption debug;

    @Option(names = "--server", description = "Serve one run for a client that connects, then exit.")
    boolean server;

    @Option(names = "--bind", paramLabel = "ADDR", description = "Address the server listens on (default: 0.0.0.0);"
            + " with --directory the address this side's engine binds and publishes, on either side (default: 127.0.0.1).")
    String bind;

    @Option(names = "--port", paramLabel = "P", description = "Port the server listens on, 0 for any (default: ${DEFAULT-VALUE}).",
            defaultValue = "" + Bootstrap.DEFAULT_PORT)
    int port;

    @Option(names = "--connect", paramLabel = "HOST:PORT", description = "Run against a server on another host.")
    String connect;

    @Option(names = "--directory", paramLabel = "URL", description = "Find the other side through a directory:"
            + " redis://HOST:PORT, etcd://HOST:PORT or file:/PATH (the embedded one). Needs --name, and --peer unless"
            + " --server.")
    String directory;

    @Option(names = "--name", paramLabel = "NAME", description = "This side's engine name in the --directory.")
    String name;

    @Option(names = "--peer", paramLabel = "NAME", description = "The server's engine name in the --directory.")
    String peer;

    @Option(names = "--op", paramLabel = "OP", description = "write, read, write-imm or send (default: write).")
    String op;

    @Option(names = "--mode", paramLabel = "MODE",
            description = "bw (many outstanding) or lat (one at a time). Default: bw, plus a 64-byte lat row when no size is given.")
    String mode;

    @Option(names = "--size", paramLabel = "N", description = "One size, e.g. 4096, 64K, 1M.")
    String size;

    @Option(names = "--sizes", paramLabel = "MIN:MAX", description = "Powers of two from MIN to MAX, e.g. 1:16M (default 4K:4M).")
    String sizes;

    @Option(names = "--iters", paramLabel = "N",
            description = "Timed operations per row (default: bw 256 MiB worth, 16..20000; lat 1000).")
    Integer iters;

    @Option(names = "--warmup", paramLabel = "N", description = "Untimed operations before each row (default: bw iters/10, lat 100;"
            + " with neither --iters nor --warmup, the first row is also run once untimed first, up to 300000 operations or"
            + " 1 GiB, so that the JIT has compiled the data path).")
    Integer warmup;

    @Option(names = "--depth", paramLabel = "N", description = "Operations outstanding in bw rows, 1..1024 (default: 16; lat: 1).")
    Integer depth;

    @Option(names = "--qps", paramLabel = "N", description = "io queue pairs of each endpoint, 1..64 (default: ${DEFAULT-VALUE}).",
            defaultValue = "1")
    int qps;

    @Option(names = "--selector", paramLabel = "NAME", description = "Queue pair selector of the endpoint.")
    String selector;

    @Option(names = "--signal-every", paramLabel = "N", description = "Signal one request in N (selective signaling).")
    Integer signalEvery;

    @Option(names = "--mtu", paramLabel = "BYTES", description = "Payload bytes per packet, 256..65000 (K suffix;"
            + " default: the largest the path carries without IP fragmentation: 60K on loopback and the inproc wire,"
            + " the interface MTU less 92 bytes of headers to another host, e.g. 1408 at MTU 1500).")
    String mtu;

    @Option(names = "--wire", paramLabel = "WIRE",
            description = "udp (default: two processes), shm (two processes on this host, shared memory) or inproc"
                    + " (both sides in this process).", defaultValue = "udp")
    String wire;

    @Option(names = "--busy-poll", description = "Both sides' progress threads spin instead of blocking when idle:"
            + " the lowest latency, at the cost of a core per thread (default: spin briefly, then block until a datagram"
            + " or a post arrives). The header shows which.")
    boolean busyPoll;

    @Option(names = "--verify", description = "Check every byte where it landed (pattern of a seed and the offset).")
    boolean verify;

    @Option(names = "--json", description = "Print one JSON object per row instead of the table.")
    boolean json;

    @Option(names = "--timeout", paramLabel = "SECONDS",
            description = "Bound of connecting, of each side-channel message and of an operation (default: ${DEFAULT-VALUE}).",
            defaultValue = "30")
    int timeoutSeconds;

    @Option(names = "--child", hidden = true, description = "Internal: the server of a loopback run.")
    boolean child;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    /** Whether the user gave {@code option}. */
    boolean given(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    PrintStream out() {
        return Main.out(spec);
    }

    @Override
    public Integer call() throws Exception {
        if (timeoutSeconds < 1 || timeoutSeconds > 3600) {
            throw new IllegalArgumentException("--timeout must be 1..3600 seconds, was " + timeoutSeconds);
        }
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        if (directory != null || name != null || peer != null) {
            return DirectoryPerf.command(this, timeout);
        }
        if (server) {
            for (String o : List.of("--connect", "--op", "--mode", "--size", "--sizes", "--iters", "--warmup", "--depth",
                    "--qps", "--selector", "--signal-every", "--mtu", "--verify", "--json", "--wire", "--busy-poll")) {
                if (spec.commandLine().getParseResult().hasMatchedOption(o)) {
                    throw new IllegalArgumentException(o + " is chosen by the client; --server takes only --bind, --port"
                            + " and --timeout");
                }
            }
            return serve(bind == null ? "0.0.0.0" : bind, timeout);
        }
        for (String o : List.of("--bind", "--port")) {
            if (spec.commandLine().getParseResult().hasMatchedOption(o)) {
                throw new IllegalArgumentException(o + " needs --server");
            }
        }
        PerfPlan plan = plan(timeout);
        PerfEndpoints.config("check", plan.qps(), plan.selector(), plan.signalEvery(), plan.mtu()); // refuse bad settings first
        if (plan.wire().equals("inproc")) {
            if (connect != null) {
                throw new IllegalArgumentException("--wire inproc runs both sides in this process; it cannot be combined"
                        + " with --connect");
            }
            return inproc(plan);
        }
        if (connect != null) {
            int colon = connect.lastIndexOf(':');
            String host = colon < 0 ? connect : connect.substring(0, colon);
            int p = colon < 0 ? Bootstrap.DEFAULT_PORT : parsePort(connect.substring(colon + 1));
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            if (host.isEmpty()) {
                throw new IllegalArgumentException("--connect needs HOST:PORT, was '" + connect + "'");
            }
            try (BootstrapChannel channel = Bootstrap.connect(host, p, timeout)) {
                return client(plan, channel, PerfEndpoints::udpWire, "two hosts (" + connect + ")");
            }
        }
        try (LoopbackServer peer = LoopbackServer.start();
             BootstrapChannel channel = Bootstrap.connect("127.0.0.1", peer.port(), timeout)) {
            return client(plan, channel, PerfEndpoints::udpWire, plan.wire().equals("shm")
                    ? "two processes on this host" : "two processes on loopback");
        }
    }

    private int client(PerfPlan plan, BootstrapChannel channel, Supplier<Wire> wires, String where)
            throws InterruptedException {
        try (Wire w = wires.get()) {
            return new PerfClient(plan, PerfControl.of(channel), new Report(out(), plan, where),
                    new Progress(Main.err(spec), Progress.onTerminal())).run(w, channel.localAddress());
        }
    }

    private int serve(String bind, Duration timeout) throws InterruptedException {
        try (BootstrapListener listener = Bootstrap.listen(bind, port)) {
            if (child) {
                watchParent();
                out().println(LoopbackServer.READY + listener.port());
            } else {
                out().printf("slime4j perf: server listening on %s:%d (waiting up to %d min for a client)%n", bind,
                        listener.port(), PerfServer.COMMAND_WAIT.toMinutes());
            }
            out().flush();
            try (BootstrapChannel channel = listener.accept(PerfServer.COMMAND_WAIT)) {
                listener.close();
                new PerfServer(channel, PerfEndpoints::udpWire, timeout).run();
            } catch (IllegalArgumentException e) {
                throw new CliException("the client sent a request this server cannot serve: " + e.getMessage(), e);
            } catch (BootstrapException e) {
                if (e.reason() == BootstrapException.Reason.CLOSED) {
                    throw new CliException("the client closed the connection mid-run (its process ended or was killed)", e);
                }
                throw e;
            }
            if (!child) {
                out().println("slime4j perf: run finished");
            }
            return 0;
        }
    }

    /** A loopback server exits when the process that started it is gone (its stdin ends). */
    private static void watchParent() {
        Thread.ofPlatform().daemon().name("perf-parent-watch").start(() -> {
            try {
                while (System.in.read() >= 0) {
                    // nothing is sent; wait for the end
                }
            } catch (IOException e) {
                // gone as well
            }
            Runtime.getRuntime().halt(3);
        });
    }

    private int inproc(PerfPlan plan) throws Exception {
        try (InprocWire shared = new InprocWire();
             BootstrapListener listener = Bootstrap.listen("127.0.0.1", 0)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread serverThread = Thread.ofPlatform().daemon().name("perf-server").start(() -> {
                try (BootstrapChannel channel = listener.accept(plan.timeout())) {
                    new PerfServer(channel, () -> new SharedWire(shared), plan.timeout()).run();
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            try (BootstrapChannel channel = Bootstrap.connect(InetAddress.getLoopbackAddress().getHostAddress(),
                    listener.port(), plan.timeout())) {
                return client(plan, channel, () -> new SharedWire(shared), "both sides in this process");
            } catch (CliException e) {
                serverThread.join(Duration.ofSeconds(5));
                Throwable t = failure.get();
                throw t == null ? e : new CliException(e.getMessage() + "; the server side: " + t.getMessage(), t);
            } finally {
                serverThread.join(plan.timeout());
            }
        }
    }

    private static int parsePort(String text) {
        try {
            int p = Integer.parseInt(text);
            if (p >= 1 && p <= 65_535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("--connect needs HOST:PORT with a port in 1..65535, was '" + text + "'");
    }

    /** Validates the run options into a plan. */
    PerfPlan plan(Duration timeout) {
        PerfPlan.Op o = op == null ? PerfPlan.Op.WRITE : PerfPlan.Op.parse(op);
        if (mode != null && !mode.equals("bw") && !mode.equals("lat")) {
            throw new IllegalArgumentException("--mode must be bw or lat, was '" + mode + "'");
        }
        if (size != null && sizes != null) {
            throw new IllegalArgumentException("give --size or --sizes, not both");
        }
        if (!wire.equals("udp") && !wire.equals("inproc") && !wire.equals("shm")) {
            throw new IllegalArgumentException("--wire must be udp, shm or inproc, was '" + wire + "'");
        }
        if (wire.equals("shm") && connect != null) {
            throw new IllegalArgumentException("--wire shm reaches processes on this host only; it cannot be combined"
                    + " with --connect");
        }
        range("--qps", qps, 1, 64);
        if (iters != null) {
            range("--iters", iters, 1, 100_000_000);
        }
        if (warmup != null) {
            range("--warmup", warmup, 0, 100_000_000);
        }
        if (depth != null) {
            range("--depth", depth, 1, 1024);
        }
        if (signalEvery != null) {
            range("--signal-every", signalEvery, 1, 1 << 16);
        }
        if (selector != null && selector.isBlank()) {
            throw new IllegalArgumentException("--selector needs a name");
        }
        List<Long> list = size != null ? List.of(size(size, "--size")) : sizes != null ? sizes(sizes) : null;
        boolean defaults = list == null && mode == null;
        List<PerfPlan.Row> rows = new ArrayList<>();
        if (mode == null || mode.equals("bw")) {
            for (long s : list != null ? list : sizes("4K:4M")) {
                int n = iters != null ? iters : (int) Math.clamp((256L << 20) / s, 16, PerfPlan.BW_ITERS_MAX);
                int w = warmup != null ? warmup : Math.max(1, n / 10);
                rows.add(new PerfPlan.Row(o, PerfPlan.Mode.BW, s, n, w, depth != null ? depth : 16));
            }
        }
        if (defaults || "lat".equals(mode)) {
            if (depth != null && depth != 1 && "lat".equals(mode)) {
                throw new IllegalArgumentException("--mode lat keeps one operation outstanding; --depth must be 1");
            }
            for (long s : list != null ? list : List.of(64L)) {
                rows.add(new PerfPlan.Row(o, PerfPlan.Mode.LAT, s, iters != null ? iters : 1000,
                        warmup != null ? warmup : 100, 1));
            }
        }
        // with the default counts, a first row untimed so that the JIT does not compete with the timed ones
        PerfPlan.Row jit = iters == null && warmup == null ? PerfPlan.jitWarmupFor(rows.getFirst()) : null;
        return new PerfPlan(rows, qps, selector, signalEvery == null ? 0 : signalEvery, mtu(), wire, verify, json,
                timeout, jit, busyPoll);
    }

    /** Payload bytes per packet on loopback when the devices choose it from the path (60 KiB). */
    static final int LOOPBACK_MTU = QpConfig.DEFAULT_MAX_MTU;

    /**
     * Payload bytes per packet of the run's queue pairs: {@code --mtu}, else 0, which lets each
     * device choose the largest its path carries without IP fragmentation (60 KiB on loopback, the
     * interface MTU less the headers elsewhere), as the library does by default.
     */
    private int mtu() {
        if (mtu != null) {
            long v = size(mtu, "--mtu");
            range("--mtu", v, QpConfig.MIN_MTU, QpConfig.MAX_MTU);
            return (int) v;
        }
        return QpConfig.MTU_FROM_PATH;
    }

    static void range(String option, long v, long min, long max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(option + " must be in " + min + ".." + max + ", was " + v);
        }
    }

    private static long size(String text, String option) {
        long s;
        try {
            s = Sizes.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage());
        }
        if (s < 1 || s > 1L << 30) {
            throw new IllegalArgumentException(option + " must be 1 B .. 1 GiB, was '" + text + "'");
        }
        return s;
    }

    private static List<Long> sizes(String text) {
        int colon = text.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("--sizes needs MIN:MAX (e.g. 4K:4M), was '" + text + "'");
        }
        long min = size(text.substring(0, colon), "--sizes");
        long max = size(text.substring(colon + 1), "--sizes");
        if (min > max) {
            throw new IllegalArgumentException("--sizes: MIN is larger than MAX in '" + text + "'");
        }
        List<Long> list = new ArrayList<>();
        for (long s = min; s <= max; s *= 2) {
            list.add(s);
        }
        return list;
    }

    /** The in-process wire both sides of an inproc run share; closing a side's view leaves it open. */
    record SharedWire(InprocWire wire) implements Wire {
        @Override
        public String name() {
            return wire.name();
        }

        @Override
        public io.slime4j.wire.WirePort bind(String address) {
            return wire.bind(address);
        }

        @Override
        public void close() {
            // the owner closes the shared wire
        }
    }
}
