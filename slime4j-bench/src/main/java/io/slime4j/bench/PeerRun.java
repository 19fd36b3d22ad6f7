package io.slime4j.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one system's two {@link Side}s as two child JVMs and relays between them: {@code PEER}
 * lines go to the other side, results into {@link Results}. Bounded by the run's timeout; both
 * children are killed on close, whatever happened. A side that fails or times out makes the
 * system skipped with the reason (its last error line), never silently dropped.
 */
final class PeerRun implements AutoCloseable {
    private final String system;
    private final Results results;
    private final Child a;
    private final Child b;
    /** Both sides said DONE and closed, or one side ended without DONE or skipped: no need to wait on. */
    private final CompletableFuture<Void> over = new CompletableFuture<>();
    private final AtomicInteger finished = new AtomicInteger();

    PeerRun(String system, CompareOptions o, Results results) throws IOException {
        this(system, o, results, Map.of());
    }

    /** As above, with {@code env} added to both children's environment (tests). */
    PeerRun(String system, CompareOptions o, Results results, Map<String, String> env) throws IOException {
        this.system = system;
        this.results = results;
        Map<String, String> all = new java.util.HashMap<>(environment(system));
        all.putAll(env);
        this.a = new Child("a", command(system, "a", o), all);
        this.b = new Child("b", command(system, "b", o), all);
        a.other = b;
        b.other = a;
        a.start();
        b.start();
    }

    /** Waits for both sides to finish, at most {@code seconds}; records a skip reason otherwise. */
    void await(long seconds) throws InterruptedException {
        try {
            over.get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            results.skip(system, "did not finish within " + seconds + " s (--timeout); figures so far are kept");
            return;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
        for (Child c : List.of(a, b)) {
            if (!c.done && results.skipReason(system) == null && c.process.waitFor(5, TimeUnit.SECONDS)) {
                results.skip(system, "side " + c.role + " exited with code " + c.process.exitValue() + ": " + c.lastError());
            }
        }
        for (Child c : List.of(a, b)) {
            if (!c.done) {
                results.skip(system, "side " + c.role + " stopped without finishing: " + c.lastError());
            }
        }
    }

    static List<String> command(String system, String role, CompareOptions o) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx1g");
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("--sun-misc-unsafe-memory-access=allow");
        if (system.equals("aeron")) {
            cmd.add("--add-exports");
            cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED");
            cmd.add("-Daeron.print.configuration=false");
            // socket buffers and receiver window as Aeron's tuning guide has them for throughput (the
            // defaults, 128 KiB, drop datagrams on a loaded loopback); the kernel grants up to rmem_max
            cmd.add("-Daeron.socket.so_rcvbuf=2m");
            cmd.add("-Daeron.socket.so_sndbuf=2m");
            cmd.add("-Daeron.rcv.initial.window.length=2m");
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Side.class.getName());
        cmd.add(system);
        cmd.add(role);
        cmd.addAll(o.raw);
        return cmd;
    }

    static Map<String, String> environment(String system) {
        if (system.equals("jucx") && System.getenv("UCX_TLS") == null) {
            return Map.of("UCX_TLS", "tcp", "UCX_WARN_UNUSED_ENV_VARS", "n");
        }
        return Map.of();
    }

    @Override
    public void close() {
        for (Child c : List.of(a, b)) {
            c.stop();
        }
    }

    /** One side's process, its stdin, and the threads that read its stdout and stderr. */
    private final class Child {
        final String role;
        final Process process;
        final PrintStream stdin;
        final Deque<String> errors = new ArrayDeque<>();
        volatile boolean done;
        Child other;

        Child(String role, List<String> command, Map<String, String> env) throws IOException {
            this.role = role;
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().putAll(env);
            this.process = pb.start();
            this.stdin = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        }

        void start() {
            Thread.ofPlatform().daemon().name(system + "-" + role + "-out").start(this::readOut);
            Thread.ofPlatform().daemon().name(system + "-" + role + "-err").start(this::readErr);
        }

        private void readOut() {
            try (BufferedReader r = reader(process.getInputStream())) {
                String line;
                while ((line = r.readLine()) != null) {
                    handle(line);
                }
            } catch (IOException e) {
                // the process went away: the latch below ends the wait
            } finally {
                if (!done || finished.incrementAndGet() == 2) {
                    over.complete(null); // a side that ends without DONE ends the run: its peer would only time out
                }
            }
        }

        private void handle(String line) {
            String[] p = line.split(" ", 2);
            String rest = p.length > 1 ? p[1] : "";
            switch (p[0]) {
                case "PEER" -> other.send(rest);
                case "RESULT" -> {
                    String[] kv = rest.split(" ");
                    String[] mv = kv[0].split("@", 2);
                    try {
                        results.put(mv.length > 1 ? system + "@" + mv[1] : system, mv[0], Double.parseDouble(kv[1]));
                    } catch (IllegalStateException e) { // a figure reported twice: the run's figures cannot be told apart
                        results.refuse(system, e.getMessage());
                        over.complete(null);
                    }
                }
                case "WARMED" -> results.warmed(system, Integer.parseInt(rest.trim()));
                case "NOTE" -> results.note(rest);
                case "SKIP" -> {
                    results.skip(system, rest);
                    over.complete(null);
                }
                case "DONE" -> done = true;
                default -> System.err.println("[" + system + " " + role + "] " + line);
            }
        }

        private void readErr() {
            try (BufferedReader r = reader(process.getErrorStream())) {
                String line;
                while ((line = r.readLine()) != null) {
                    System.err.println("[" + system + " " + role + "] " + line);
                    synchronized (errors) {
                        errors.addLast(line);
                        if (errors.size() > 40) {
                            errors.removeFirst();
                        }
                    }
                }
            } catch (IOException e) {
                // process gone
            }
        }

        /** The most telling recent error line: an exception line if there is one. */
        String lastError() {
            synchronized (errors) {
                String pick = null;
                for (String l : errors) {
                    if (!l.startsWith("\t") && (l.contains("Exception") || l.contains("Error"))) {
                        pick = l;
                    }
                }
                return pick != null ? pick.trim() : errors.isEmpty() ? "(no output)" : errors.peekLast().trim();
            }
        }

        void send(String line) {
            stdin.println(line);
        }

        void stop() {
            stdin.close(); // the side's link sees the end of input and its process ends
            ChildProcess.reap(process);
        }
    }

    private static BufferedReader reader(java.io.InputStream in) {
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }
}
