package io.slime4j.bench;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * iperf3 (Debian's) as {@link WriteBench}'s TCP baseline, the stream issue 19 names: a server in
 * the served side's namespace, and per call one client stream of {@code -n} bytes in messages of
 * {@code -l} bytes, whose receiver-side rate iperf3 reports in its JSON ({@code end.sum_received}).
 * Every wait is bounded; the server is always stopped on close.
 */
final class IperfStream implements AutoCloseable {
    private static final long CALL_TIMEOUT_SECONDS = 300;
    private final Process server;
    private final String host;
    private final int port;

    /**
     * Starts {@code iperf3 -s} on {@code host} behind {@code prefix} (e.g. {@code ip netns exec
     * NAME}) and waits (10 s at most per try) for it to listen; a port taken by something else
     * makes it try another, 5 times at most.
     */
    IperfStream(List<String> prefix, String host) throws IOException, InterruptedException {
        this.host = host;
        Listening l = listen(prefix, host);
        this.server = l.server();
        this.port = l.port();
    }

    private record Listening(Process server, int port) {}

    private static Listening listen(List<String> prefix, String host) throws IOException, InterruptedException {
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = 20_000 + ThreadLocalRandom.current().nextInt(30_000);
            Process s = start(prefix, host, port);
            try {
                awaitListening(s, host, port);
                return new Listening(s, port);
            } catch (IOException e) {
                stop(s);
                last = e;
            } catch (InterruptedException | RuntimeException e) {
                stop(s);
                throw e;
            }
        }
        throw last;
    }

    private static Process start(List<String> prefix, String host, int port) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        // flushed: its "listening" line must come through a pipe
        command.addAll(List.of("iperf3", "-s", "--forceflush", "-B", host, "-p", Integer.toString(port)));
        try {
            return new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot start iperf3 (Debian's package iperf3): " + e.getMessage(), e);
        }
    }

    /** Reads the server's output to its end on a daemon thread (it never blocks on a full pipe) and waits for its "listening" line. */
    private static void awaitListening(Process server, String host, int port) throws IOException, InterruptedException {
        CompletableFuture<Void> listening = new CompletableFuture<>();
        Thread drain = new Thread(() -> {
            try (BufferedReader r = server.inputReader(StandardCharsets.UTF_8)) {
                for (String line; (line = r.readLine()) != null; ) {
                    if (line.contains("Server listening")) {
                        listening.complete(null);
                    } else if (line.contains("error")) {
                        System.err.println("iperf3 -s: " + line);
                    }
                }
            } catch (IOException e) {
                listening.completeExceptionally(e);
            }
            listening.completeExceptionally(new IOException("iperf3 -s ended before it listened"));
        }, "iperf3-server-output");
        drain.setDaemon(true);
        drain.start();
        try {
            listening.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("iperf3 -s on " + host + ":" + port + " did not listen within 10 s: " + e, e);
        }
    }

    /** One stream of {@code bytes} in writes of {@code size}; returns the rate the receiver saw, MB/s (10^6). */
    double round(int size, long bytes) throws IOException, InterruptedException {
        Path report = Files.createTempFile("iperf3-", ".json");
        try {
            Process client = new ProcessBuilder("iperf3", "-c", host, "-p", Integer.toString(port), "-l",
                    Integer.toString(size), "-n", Long.toString(bytes), "-J") // errors, too, are in the JSON
                    .redirectError(ProcessBuilder.Redirect.DISCARD).redirectOutput(report.toFile()).start();
            try {
                if (!client.waitFor(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    throw new IOException("iperf3 -c did not finish within " + CALL_TIMEOUT_SECONDS + " s");
                }
            } finally {
                client.destroyForcibly();
            }
            String json = Files.readString(report, StandardCharsets.UTF_8);
            if (client.exitValue() != 0) {
                throw new IOException("iperf3 -c exited with " + client.exitValue() + ": " + json.strip());
            }
            return receivedMegabytesPerSecond(json);
        } finally {
            Files.deleteIfExists(report);
        }
    }

    /** {@code end.sum_received.bits_per_second} of iperf3's JSON report, in MB/s (10^6 bytes). */
    static double receivedMegabytesPerSecond(String json) throws IOException {
        Map<String, Object> report = JSON.std.mapFrom(json);
        if (report.get("end") instanceof Map<?, ?> end && end.get("sum_received") instanceof Map<?, ?> sum
                && sum.get("bits_per_second") instanceof Number bps) {
            return bps.doubleValue() / 8 / 1e6;
        }
        throw new IOException("iperf3's report has no end.sum_received.bits_per_second"
                + (report.get("error") != null ? ": " + report.get("error") : ""));
    }

    @Override
    public void close() {
        stop(server);
    }

    private static void stop(Process p) {
        p.destroy();
        ChildProcess.reap(p);
    }
}
