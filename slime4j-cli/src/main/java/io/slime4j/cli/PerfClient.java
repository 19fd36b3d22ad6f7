package io.slime4j.cli;

import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.BootstrapMessage;
import io.slime4j.endpoint.BootstrapException;
import io.slime4j.endpoint.EndpointBusyException;
import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.endpoint.RdmaEndpoint;
import io.slime4j.endpoint.TransferFuture;
import io.slime4j.endpoint.TransferStatus;
import io.slime4j.engine.TransferEngine;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.Wire;
import java.time.Duration;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * The active side of {@code perf}: sends the run's settings in its hello, connects its endpoint to
 * the server's (or, with {@code --directory}, lets its {@link TransferEngine} reach the server's by
 * name), and runs each row — warm-up, then the timed operations with up to {@code depth}
 * outstanding — and asks the server to check what landed. Rows are reported as they finish.
 */
final class PerfClient {
    private static final long SEED = 0x5EED;
    private static final long POLL_MILLIS = 200;

    private final PerfPlan plan;
    private final PerfControl control;
    private final Report report;
    private final Progress progress;
    private PerfLink link;
    private MemorySegment local;
    private String current = "the setup";

    PerfClient(PerfPlan plan, PerfControl control, Report report, Progress progress) {
        this.plan = plan;
        this.control = control;
        this.report = report;
        this.progress = progress;
    }

    /**
     * Runs every row over an endpoint of its own on {@code wire}, bound to {@code localAddress},
     * connected by hand through the side channel; returns 0, or throws a {@link CliException} naming
     * what failed.
     */
    int run(Wire wire, InetAddress localAddress) throws InterruptedException {
        EndpointConfig config = PerfEndpoints.config("perf-client", plan.qps(), plan.selector(), plan.signalEvery(), plan.mtu());
        boolean shm = plan.wire().equals("shm");
        try (VerbsDevice d = PerfEndpoints.device(shm, wire, localAddress, "perf-client", plan.busyPoll());
             Arena arena = Arena.ofShared();
             RdmaEndpoint e = RdmaEndpoint.open(d, config)) {
            local = PerfEndpoints.allocate(shm, arena, plan.regionBytes());
            e.register("local", local);
            Map<String, String> hello = hello();
            if (shm) {
                hello.put("device", "shm");
            }
            BootstrapMessage reply = exchange(BootstrapMessage.of(e.info(), hello));
            if (reply.options().containsKey("error") || reply.info() == null) {
                throw new CliException("the server refused the run: " + reply.get("error", "no endpoint info"));
            }
            if (Boolean.parseBoolean(reply.get("busyPoll", "false")) != plan.busyPoll()) {
                throw new CliException("the server did not take --busy-poll (a server of an older build?)");
            }
            e.connect(reply.info());
            return measure(PerfLink.of(e, d));
        } finally {
            progress.close();
        }
    }

    /**
     * Runs every row through {@code engine} towards the engine named {@code peer} (the control
     * messages go through the engines too); {@code local} is registered as {@code local} and
     * {@code config} is the engine's endpoint settings.
     */
    int run(TransferEngine engine, String peer, EndpointConfig config, MemorySegment local) throws InterruptedException {
        try {
            this.local = local;
            BootstrapMessage reply = exchange(BootstrapMessage.of(hello()));
            if (reply.options().containsKey("error")) {
                throw new CliException("the server refused the run: " + reply.get("error", "?"));
            }
            return measure(PerfLink.of(engine, peer, config));
        } finally {
            progress.close();
        }
    }

    /** The hello: the run's settings the server needs. */
    private Map<String, String> hello() {
        Map<String, String> hello = new LinkedHashMap<>();
        hello.put("proto", PerfServer.PROTOCOL);
        hello.put("qps", Integer.toString(plan.qps()));
        hello.put("region", Long.toString(plan.regionBytes()));
        if (plan.selector() != null) {
            hello.put("selector", plan.selector());
        }
        hello.put("signalEvery", Integer.toString(plan.signalEvery()));
        hello.put("mtu", Integer.toString(plan.mtu()));
        if (plan.busyPoll()) {
            hello.put("busyPoll", "true");
        }
        return hello;
    }

    /** The measuring loop: each row, then bye. It does not care where its link came from. */
    private int measure(PerfLink l) throws InterruptedException {
        link = l;
        if (plan.jitWarmup() != null) {
            row(plan.jitWarmup(), SEED - 1); // untimed and not reported: the JIT compiles the data path here
        }
        for (int i = 0; i < plan.rows().size(); i++) {
            report.begin(plan.rows().get(i));
            report.row(row(plan.rows().get(i), SEED + i));
        }
        report.end();
        current = "the end of the run";
        if (control.answersBye()) {
            exchange(BootstrapMessage.of(Map.of("cmd", "bye")));
        } else {
            control.send(BootstrapMessage.of(Map.of("cmd", "bye")), plan.timeout());
        }
        return 0;
    }

    private RowResult row(PerfPlan.Row row, long seed) throws InterruptedException {
        current = row.label();
        if (row.op() == PerfPlan.Op.READ) {
            local.asSlice(0, row.regionBytes()).fill((byte) 0);
        } else {
            Pattern.fill(local, 0, row.regionBytes(), seed);
        }
        Map<String, String> cmd = new LinkedHashMap<>();
        cmd.put("cmd", "row");
        cmd.put("op", row.op().cli);
        cmd.put("bytes", Long.toString(row.bytes()));
        cmd.put("count", Long.toString(row.count()));
        cmd.put("slots", Integer.toString(row.slots()));
        cmd.put("depth", Integer.toString(row.depth()));
        cmd.put("seed", Long.toString(seed));
        cmd.put("checked", Long.toString(row.checkedBytes()));
        cmd.put("verify", Boolean.toString(plan.verify()));
        exchange(BootstrapMessage.of(cmd));
        long[] before = link.counters();

        progress.start(row.label(), row.count());
        run(row, 0, row.warmup(), null);
        Histogram latencies = RowResult.histogram();
        long t0 = System.nanoTime();
        run(row, row.warmup(), row.iters(), latencies);
        long nanos = System.nanoTime() - t0;
        progress.clear();

        // the server may wait up to the timeout for the last arrivals, then checks every byte
        BootstrapMessage result = exchange(BootstrapMessage.of(Map.of("cmd", "done")),
                plan.timeout().multipliedBy(2).plusSeconds(30));
        if (result.options().containsKey("error")) {
            throw new CliException(row.label() + ": the server reports: " + result.require("error"));
        }
        boolean verified = false;
        if (plan.verify()) {
            if (row.op() == PerfPlan.Op.READ) {
                long at = Pattern.firstMismatch(local, 0, row.checkedBytes(), seed);
                if (at >= 0) {
                    throw mismatch(row, "this side's", at, local.get(ValueLayout.JAVA_BYTE, at) & 0xFF,
                            Pattern.at(seed, at) & 0xFF);
                }
            } else {
                long at = Long.parseLong(result.require("mismatch"));
                if (at >= 0) {
                    throw mismatch(row, "the server's", at, Integer.parseInt(result.require("actual")),
                            Integer.parseInt(result.require("expected")));
                }
            }
            verified = true;
        }
        long[] after = link.counters();
        long[] counters = new long[after.length];
        for (int i = 0; i < counters.length; i++) {
            counters[i] = after[i] - before[i] + Long.parseLong(result.require(PerfEndpoints.REPORTED[i].name()));
        }
        return new RowResult(row, plan.qps(), plan.wire(), nanos, latencies, verified, counters);
    }

    private static CliException mismatch(PerfPlan.Row row, String whose, long at, int actual, int expected) {
        long op = at / row.bytes();
        return new CliException(String.format("verification failed: %s: byte %d of operation slot %d (offset %d of %s"
                + " region) is 0x%02x, expected 0x%02x", row.label(), at % row.bytes(), op, at, whose, actual, expected));
    }

    /** Issues operations {@code first .. first+n-1} with up to {@code depth} outstanding and waits for all. */
    private void run(PerfPlan.Row row, long first, int n, Histogram latencies) throws InterruptedException {
        int depth = row.depth();
        TransferFuture[] ring = new TransferFuture[depth];
        long[] started = new long[depth];
        for (int k = 0; k < n; k++) {
            int idx = k % depth;
            if (ring[idx] != null) {
                complete(ring[idx], started[idx], latencies, k - depth);
            }
            long i = first + k;
            long offset = (i % row.slots()) * row.bytes();
            started[idx] = System.nanoTime();
            ring[idx] = issue(row, offset, (int) i);
            progress.set(i + 1);
        }
        for (int k = Math.max(0, n - depth); k < n; k++) {
            complete(ring[k % depth], started[k % depth], latencies, k);
        }
    }

    private TransferFuture issue(PerfPlan.Row row, long offset, int index) {
        try {
            return switch (row.op()) {
                case WRITE -> link.write(List.of(new Assignment("local", offset, "remote", offset, row.bytes())));
                case READ -> link.read(List.of(new Assignment("local", offset, "remote", offset, row.bytes())));
                case WRITE_IMM -> link.writeWithImm(List.of(new Assignment("local", offset, "remote", offset, row.bytes())),
                        index);
                case SEND -> link.send("local", offset, row.bytes());
            };
        } catch (EndpointBusyException e) {
            checkPeer();
            throw new CliException(row.label() + ": the endpoint stayed busy for "
                    + link.config().slotTimeout().toSeconds() + " s (the peer stopped answering?)", e);
        }
    }

    private void complete(TransferFuture f, long started, Histogram latencies, int timedIndex) throws InterruptedException {
        long lastProgress = System.nanoTime();
        while (true) {
            try {
                TransferStatus status = f.await(Duration.ofMillis(POLL_MILLIS));
                long now = System.nanoTime();
                if (status != TransferStatus.SUCCESS) {
                    checkPeer();
                    throw new CliException(current + " failed: " + f.failureMessage());
                }
                if (latencies != null && timedIndex >= 0) {
                    latencies.recordValue(now - started);
                }
                return;
            } catch (TimeoutException e) {
                checkPeer();
                if (System.nanoTime() - lastProgress > plan.timeout().toNanos()) {
                    throw new CliException(current + ": an operation did not complete within "
                            + plan.timeout().toSeconds() + " s (the peer stopped answering)");
                }
            }
        }
    }

    private void checkPeer() {
        if (control.isPeerClosed()) {
            throw new CliException("the peer closed the connection during " + current
                    + " (its process ended or was killed)");
        }
    }

    private BootstrapMessage exchange(BootstrapMessage message) {
        return exchange(message, plan.timeout());
    }

    private BootstrapMessage exchange(BootstrapMessage message, java.time.Duration wait) {
        try {
            control.send(message, plan.timeout());
            return control.receive(wait);
        } catch (BootstrapException e) {
            if (e.reason() == BootstrapException.Reason.CLOSED) {
                throw new CliException("the peer closed the connection during " + current
                        + " (its process ended or was killed)", e);
            }
            throw new CliException(current + ": " + e.getMessage(), e);
        }
    }
}
