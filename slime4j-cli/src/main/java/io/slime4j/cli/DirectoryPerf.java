package io.slime4j.cli;

import io.slime4j.endpoint.BootstrapException;
import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.engine.TransferEngine;
import io.slime4j.engine.directory.Directories;
import io.slime4j.engine.directory.Directory;
import io.slime4j.engine.directory.DirectoryException;
import io.slime4j.engine.directory.PeerRecord;
import io.slime4j.shm.TransportChoice;
import io.slime4j.wire.Wire;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;

/**
 * {@code perf --directory URL}: both sides are {@link TransferEngine}s that publish themselves in
 * the directory and find each other there by name. The server ({@code --server --name B}) serves
 * whichever engine connects first; the client ({@code --name A --peer B}) waits (bounded) for B's
 * record, then runs the plan through its engine towards {@code B} — the first control message
 * makes the connection, as a user's first operation would. The measuring loops are those of
 * {@link PerfClient} and {@link PerfServer}; the control messages go through the engines
 * ({@link EngineControl}).
 */
final class DirectoryPerf {
    /** How often the client looks for the server's record while it waits. */
    private static final Duration LOOKUP_EVERY = Duration.ofMillis(100);

    private final String url;
    private final String name;
    private final String bind;
    private final Duration timeout;

    /**
     * A run of the engine {@code name} in the directory {@code url}, its devices and listener on
     * {@code bind} (the address it publishes), every wait bounded by {@code timeout}.
     */
    DirectoryPerf(String url, String name, String bind, Duration timeout) {
        this.url = url;
        this.name = name;
        this.bind = bind;
        this.timeout = timeout;
    }

    /**
     * {@code perf --directory}: checks the options of {@code c} (each wrong one a usage error naming
     * it), then serves as engine {@code --name} or runs against {@code --peer}.
     */
    static int command(PerfCommand c, Duration timeout) throws InterruptedException {
        String directory = c.directory;
        String name = c.name;
        String peer = c.peer;
        for (String[] o : new String[][] {{"--name", name}, {"--peer", peer}}) {
            if (o[1] != null && directory == null) {
                throw new IllegalArgumentException(o[0] + " needs --directory URL (the directory the engines meet in)");
            }
        }
        if (name == null) {
            throw new IllegalArgumentException("--directory needs --name NAME (this side's engine name)");
        }
        engineName("--name", name);
        for (String o : List.of("--connect", "--port", "--wire")) {
            if (c.given(o) && !(o.equals("--wire") && c.wire.equals("udp"))) {
                throw new IllegalArgumentException(o + " cannot be combined with --directory (the engines find each"
                        + " other there and move data over the udp wire)");
            }
        }
        if (c.busyPoll) {
            throw new IllegalArgumentException("--busy-poll cannot be combined with --directory (a TransferEngine's"
                    + " progress threads always back off to blocking)");
        }
        String host = c.bind == null ? "127.0.0.1" : c.bind;
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            throw new IllegalArgumentException("--bind with --directory is the address published for the peer to reach;"
                    + " " + host + " is not one (give this host's address)");
        }
        DirectoryPerf run = new DirectoryPerf(directory, name, host, timeout);
        if (c.server) {
            if (peer != null) {
                throw new IllegalArgumentException("--peer is the client's; --server serves whichever engine connects");
            }
            for (String o : List.of("--op", "--mode", "--size", "--sizes", "--iters", "--warmup", "--depth",
                    "--selector", "--signal-every", "--mtu", "--verify", "--json")) {
                if (c.given(o)) {
                    throw new IllegalArgumentException(o + " is chosen by the client; --server --directory takes only"
                            + " --name, --bind, --qps and --timeout");
                }
            }
            PerfCommand.range("--qps", c.qps, 1, 64);
            return run.serve(c.qps, c.out());
        }
        if (peer == null) {
            throw new IllegalArgumentException("--directory needs --peer NAME (the server's engine) unless --server");
        }
        engineName("--peer", peer);
        if (peer.equals(name)) {
            throw new IllegalArgumentException("--peer names the other engine; it cannot be --name itself ('" + name
                    + "')");
        }
        PerfPlan plan = c.plan(timeout);
        PerfEndpoints.config("check", plan.qps(), plan.selector(), plan.signalEvery(), plan.mtu());
        return run.run(plan, peer, c.out(), new Progress(Main.err(c.spec), Progress.onTerminal()));
    }

    private static void engineName(String option, String value) {
        try {
            PeerRecord.checkName(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage());
        }
    }

    /** Serves one run as engine {@code name}: returns 0 after the client's bye, or throws a {@link CliException}. */
    int serve(int qps, PrintStream out) throws InterruptedException {
        EndpointConfig config = PerfEndpoints.config("perf-" + name, qps, null, 0, 0);
        try (Directory dir = Directories.open(url);
             Wire wire = PerfEndpoints.udpWire();
             Arena arena = Arena.ofShared();
             TransferEngine engine = start(dir, wire, config)) {
            EngineControl control = EngineControl.register(engine, arena);
            out.printf("slime4j perf: engine %s serving at %s, published in %s (waiting up to %d min for a client)%n",
                    name, engine.record().bootstrap(), dir.url(), PerfServer.COMMAND_WAIT.toMinutes());
            out.flush();
            String client = control.awaitClient(PerfServer.COMMAND_WAIT);
            out.printf("slime4j perf: engine %s connected%n", client);
            out.flush();
            try {
                new PerfServer(control, engine, config, arena, timeout).run();
            } catch (BootstrapException e) {
                if (e.reason() == BootstrapException.Reason.CLOSED) {
                    throw new CliException("the client engine " + client + " went away mid-run (its process ended or"
                            + " was killed): " + e.getMessage(), e);
                }
                throw e;
            }
            out.println("slime4j perf: run finished");
            return 0;
        } catch (DirectoryException e) {
            throw new CliException(e.getMessage(), e);
        }
    }

    /** Runs {@code plan} against the engine {@code peer}; returns 0, or throws a {@link CliException}. */
    int run(PerfPlan plan, String peer, PrintStream out, Progress progress) throws InterruptedException {
        EndpointConfig config = PerfEndpoints.config("perf-" + name, plan.qps(), plan.selector(), plan.signalEvery(),
                plan.mtu());
        try (Directory dir = Directories.open(url)) {
            awaitRecord(dir, peer);
            try (Wire wire = PerfEndpoints.udpWire();
                 Arena arena = Arena.ofShared();
                 TransferEngine engine = start(dir, wire, config)) {
                EngineControl control = EngineControl.register(engine, arena).peer(peer);
                MemorySegment local = arena.allocate(plan.regionBytes(), 4096);
                engine.register("local", local);
                Report report = new Report(out, plan, "engine " + name + " to engine " + peer + " found in " + dir.url());
                return new PerfClient(plan, control, report, progress).run(engine, peer, config, local);
            }
        } catch (DirectoryException e) {
            throw new CliException(e.getMessage(), e);
        }
    }

    private TransferEngine start(Directory dir, Wire wire, EndpointConfig config) {
        // over the network whatever the host: the run measures the udp wire, as its header says (two
        // engines on one host would otherwise pick the shm device)
        return TransferEngine.builder(name, dir).bindHost(bind).connectTimeout(timeout).endpointConfig(config)
                .wire(wire).transport(TransportChoice.NETWORK).start();
    }

    /** Waits for the server's record: a clear error, naming the directory and the bound, if it does not appear. */
    private void awaitRecord(Directory dir, String peer) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (dir.lookup(peer).isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                throw new CliException("no engine '" + peer + "' in directory " + dir.url() + " within "
                        + timeout.toSeconds() + " s (start it with: slime4j perf --server --directory " + url
                        + " --name " + peer + ")");
            }
            Thread.sleep(LOOKUP_EVERY);
        }
    }
}
