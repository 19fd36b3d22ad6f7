package io.slime4j.cli;

import io.slime4j.endpoint.BootstrapChannel;
import io.slime4j.endpoint.BootstrapException;
import io.slime4j.endpoint.BootstrapMessage;
import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.endpoint.RdmaEndpoint;
import io.slime4j.endpoint.TransferFuture;
import io.slime4j.endpoint.TransferStatus;
import io.slime4j.engine.TransferEngine;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.Wire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The passive side of {@code perf}: one session with one client. It learns the run's settings from
 * the client's hello, opens its endpoint with one region ({@code remote}), and per row prepares the
 * data (fills it for reads), receives what two-sided and immediate rows send, checks every byte
 * that landed and reports its transport counters. Exits when the client says bye or is gone. With
 * {@code --directory} the endpoint is a {@link TransferEngine}'s connection to the client's engine
 * and the commands go through the engines ({@link EngineControl}).
 */
final class PerfServer {
    /** Protocol version both sides must speak. */
    static final String PROTOCOL = "1";
    /** How long the server waits for the client's next command (a row may run for minutes). */
    static final Duration COMMAND_WAIT = Duration.ofMinutes(10);

    private final PerfControl control;
    private final Duration timeout;
    private final BiConsumer<String, MemorySegment> tamper;
    // the side channel's way (--connect, loopback): an endpoint of its own
    private final Supplier<Wire> wires;
    private final InetAddress localAddress;
    // the directory's way: the engine serving, and its connections' settings
    private final TransferEngine engine;
    private final EndpointConfig engineConfig;
    private final Arena engineArena;

    PerfServer(BootstrapChannel channel, Supplier<Wire> wires, Duration timeout) {
        this(channel, wires, timeout, (phase, region) -> { });
    }

    /**
     * A server whose region {@code tamper} may change after a read row's data was prepared
     * ({@code "prepared"}) and before a row's landed data is checked ({@code "landed"}); tests use
     * it to show that {@code --verify} catches a wrong byte on either side.
     */
    PerfServer(BootstrapChannel channel, Supplier<Wire> wires, Duration timeout,
               BiConsumer<String, MemorySegment> tamper) {
        this.control = PerfControl.of(channel);
        this.wires = wires;
        this.localAddress = channel.localAddress();
        this.timeout = timeout;
        this.tamper = tamper;
        this.engine = null;
        this.engineConfig = null;
        this.engineArena = null;
    }

    /**
     * A server whose {@code engine} (connections with {@code config}) serves the client engine
     * {@code control} talks to; the client's region is registered with the engine as {@code remote},
     * its memory from {@code arena} (which must outlive the engine: the region stays registered).
     */
    PerfServer(EngineControl control, TransferEngine engine, EndpointConfig config, Arena arena, Duration timeout) {
        this.control = control;
        this.wires = null;
        this.localAddress = null;
        this.timeout = timeout;
        this.tamper = (phase, region) -> { };
        this.engine = engine;
        this.engineConfig = config;
        this.engineArena = arena;
    }

    /** Runs the session to its end. */
    void run() throws InterruptedException {
        BootstrapMessage hello = control.receive(timeout);
        if (!PROTOCOL.equals(hello.get("proto", "")) || (engine == null && hello.info() == null)) {
            control.send(BootstrapMessage.of(Map.of("error", "unsupported client (protocol " + hello.get("proto", "?")
                    + ", expected " + PROTOCOL + ")")), timeout);
            throw new CliException("the client speaks another perf protocol (" + hello.get("proto", "?") + ")");
        }
        int qps = Integer.parseInt(hello.require("qps"));
        long region = Long.parseLong(hello.require("region"));
        if (engine != null) {
            onEngine(qps, region);
            return;
        }
        String selector = hello.get("selector", null);
        int signalEvery = Integer.parseInt(hello.get("signalEvery", "0"));
        int mtu = Integer.parseInt(hello.get("mtu", "0"));
        EndpointConfig config;
        try {
            config = PerfEndpoints.config("perf-server", qps, selector, signalEvery, mtu);
        } catch (IllegalArgumentException e) {
            control.send(BootstrapMessage.of(Map.of("error", e.getMessage())), timeout);
            throw new CliException("the client asked for settings this server refuses: " + e.getMessage());
        }
        boolean shm = "shm".equals(hello.get("device", "soft"));
        boolean busyPoll = Boolean.parseBoolean(hello.get("busyPoll", "false"));
        try (Wire wire = wires.get();
             VerbsDevice device = PerfEndpoints.device(shm, wire, localAddress, "perf-server", busyPoll);
             Arena arena = Arena.ofShared();
             RdmaEndpoint ep = RdmaEndpoint.open(device, config)) {
            MemorySegment remote = PerfEndpoints.allocate(shm, arena, region);
            ep.register("remote", remote);
            try {
                ep.connect(hello.info());
            } catch (IllegalArgumentException e) { // settings that do not match the client's (e.g. messageSlots)
                control.send(BootstrapMessage.of(Map.of("error", e.getMessage())), timeout);
                throw new CliException("the client's endpoint does not fit this one: " + e.getMessage(), e);
            }
            control.send(BootstrapMessage.of(ep.info(), Map.of("proto", PROTOCOL, "busyPoll",
                    Boolean.toString(busyPoll))), timeout); // the client checks that both sides progress alike
            serve(PerfLink.of(ep, device), remote);
        }
    }

    /** The directory's way: the client's engine is connected; registers its region and serves. */
    private void onEngine(int qps, long region) throws InterruptedException {
        if (qps != engineConfig.qps()) { // the engines connected, so this is a client of another build; say it
            control.send(BootstrapMessage.of(Map.of("error", "this server's engine has " + engineConfig.qps()
                    + " io queue pair(s), the client asked for " + qps)), timeout);
            throw new CliException("the client asked for " + qps + " io queue pair(s); this engine has "
                    + engineConfig.qps());
        }
        if (region < 1 || region > Math.max(PerfPlan.REGION_CAP, 1L << 30)) {
            throw new CliException("the client asked for a region of " + region + " bytes");
        }
        MemorySegment remote = engineArena.allocate(region, 4096);
        engine.register("remote", remote); // pushed to the connected client before this returns
        control.send(BootstrapMessage.of(Map.of("proto", PROTOCOL)), timeout);
        serve(PerfLink.of(engine, ((EngineControl) control).peer(), engineConfig), remote);
    }

    /**
     * Answers the client's bye. The client closes its engine as soon as the answer arrives, and an
     * engine's message completes at its sender only once the peer acknowledged it: the answer's
     * acknowledgement can be lost in that close, so a connection that ended under the answer is the
     * end of a finished run, not a failure (the last message of a conversation cannot be known
     * delivered). Anything else still fails.
     */
    static void answerBye(PerfControl control, Duration timeout) {
        try {
            control.send(BootstrapMessage.of(Map.of("cmd", "bye")), timeout);
        } catch (BootstrapException e) {
            if (e.reason() != BootstrapException.Reason.CLOSED) {
                throw e;
            }
        }
    }

    /** The command loop: each row's preparation, its receiver and its check, until bye. */
    private void serve(PerfLink link, MemorySegment remote) throws InterruptedException {
        Receiver receiver = null;
        long[] before = null;
        Map<String, String> row = null;
        while (true) {
            if (receiver != null && control.usesImmediates()) {
                receiver.awaitEnd(); // its immediates first: the next command is one as well
            }
            BootstrapMessage m = control.receive(COMMAND_WAIT);
            switch (m.require("cmd")) {
                case "row" -> {
                    row = m.options();
                    PerfPlan.Op op = PerfPlan.Op.parse(m.require("op"));
                    long bytes = Long.parseLong(m.require("bytes"));
                    int slots = Integer.parseInt(m.require("slots"));
                    long count = Long.parseLong(m.require("count"));
                    if (op == PerfPlan.Op.READ) {
                        Pattern.fill(remote, 0, slots * bytes, Long.parseLong(m.require("seed")));
                        tamper.accept("prepared", remote);
                    }
                    receiver = op == PerfPlan.Op.SEND || op == PerfPlan.Op.WRITE_IMM
                            ? Receiver.start(link, op, bytes, slots, count, Integer.parseInt(m.require("depth")), timeout)
                            : null;
                    before = link.counters();
                    control.send(BootstrapMessage.of(Map.of("cmd", "ready")), timeout);
                }
                case "done" -> {
                    if (row == null) {
                        throw new CliException("the client sent 'done' before a row");
                    }
                    control.send(BootstrapMessage.of(finish(row, receiver, remote, link, before)), timeout);
                    row = null;
                    receiver = null;
                }
                case "bye" -> {
                    if (control.answersBye()) {
                        answerBye(control, timeout);
                    }
                    return;
                }
                default -> throw new CliException("the client sent an unknown command '" + m.require("cmd") + "'");
            }
        }
    }

    private Map<String, String> finish(Map<String, String> row, Receiver receiver, MemorySegment remote,
                                       PerfLink link, long[] before) throws InterruptedException {
        Map<String, String> result = new LinkedHashMap<>();
        result.put("cmd", "result");
        PerfPlan.Op op = PerfPlan.Op.parse(row.get("op"));
        if (receiver != null) {
            String error = receiver.join(timeout);
            if (error != null) {
                result.put("error", error);
            }
        }
        if (Boolean.parseBoolean(row.get("verify")) && op != PerfPlan.Op.READ && !result.containsKey("error")) {
            long seed = Long.parseLong(row.get("seed"));
            long checked = Long.parseLong(row.get("checked"));
            tamper.accept("landed", remote);
            long at = Pattern.firstMismatch(remote, 0, checked, seed);
            result.put("mismatch", Long.toString(at));
            if (at >= 0) {
                result.put("actual", Integer.toString(remote.get(ValueLayout.JAVA_BYTE, at) & 0xFF));
                result.put("expected", Integer.toString(Pattern.at(seed, at) & 0xFF));
            }
        }
        long[] after = link.counters();
        for (int i = 0; i < after.length; i++) {
            result.put(PerfEndpoints.REPORTED[i].name(), Long.toString(after[i] - before[i]));
        }
        return result;
    }

    /**
     * Takes what a two-sided or immediate row sends: posts receives in send order (a window of
     * the client's depth ahead) or consumes immediates, and checks that every one arrived.
     */
    static final class Receiver {
        private Thread thread;
        private volatile String error;

        private Receiver() {}

        static Receiver start(PerfLink ep, PerfPlan.Op op, long bytes, int slots, long count, int depth,
                              Duration timeout) {
            Receiver r = new Receiver();
            r.thread = Thread.ofPlatform().daemon().name("perf-receiver").start(() -> {
                try {
                    if (op == PerfPlan.Op.SEND) {
                        receive(ep, bytes, slots, count, Math.max(1, Math.min(depth, ep.config().messageSlots())), timeout);
                    } else {
                        immediates(ep, count, timeout);
                    }
                } catch (Exception e) {
                    r.error = e.getMessage() == null ? e.toString() : e.getMessage();
                }
            });
            return r;
        }

        private static void receive(PerfLink ep, long bytes, int slots, long count, int window, Duration timeout)
                throws InterruptedException, TimeoutException {
            ArrayDeque<TransferFuture> posted = new ArrayDeque<>();
            long next = 0;
            for (long done = 0; done < count; done++) {
                while (next < count && posted.size() < window) {
                    posted.add(ep.recv("remote", (next % slots) * bytes, bytes));
                    next++;
                }
                TransferFuture f = posted.poll();
                if (f.await(timeout) != TransferStatus.SUCCESS) {
                    throw new IllegalStateException("receive " + done + " failed: " + f.failureMessage());
                }
                if (f.byteCount() != bytes) {
                    throw new IllegalStateException("receive " + done + " got " + f.byteCount() + " bytes, expected " + bytes);
                }
            }
        }

        private static void immediates(PerfLink ep, long count, Duration timeout)
                throws InterruptedException, TimeoutException {
            long sum = 0;
            for (long i = 0; i < count; i++) {
                TransferFuture f = ep.immRecv();
                if (f.await(timeout) != TransferStatus.SUCCESS) {
                    throw new IllegalStateException("immediate " + i + " failed: " + f.failureMessage());
                }
                sum += Integer.toUnsignedLong(f.immediate());
            }
            long expected = count * (count - 1) / 2;
            if (sum != expected) {
                throw new IllegalStateException("the immediates of the row sum to " + sum + ", expected " + expected
                        + " (0, 1, .. " + (count - 1) + ")");
            }
        }

        /**
         * Waits until the receiver took every operation of its row or failed; each of its waits is
         * bounded by the timeout, and the connection's end cancels them, so this ends.
         */
        void awaitEnd() throws InterruptedException {
            thread.join();
        }

        /** Waits (bounded) for the receiver; its error, or null. */
        String join(Duration timeout) throws InterruptedException {
            if (!thread.join(timeout.plusSeconds(5))) {
                return "not every operation arrived within " + timeout.toSeconds() + " s of the client's last completion";
            }
            return error;
        }
    }
}
