package io.slime4j.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The server side of a no-argument {@code perf} run: a second JVM (same java binary, same class
 * path, the same {@code slime4j.*} system properties) running {@code perf --server} on an
 * ephemeral loopback port, which it reports on its stdout. It exits when its stdin closes, so it
 * never outlives this process.
 */
final class LoopbackServer implements AutoCloseable {
    /** The line the child prints once it listens: {@code LISTENING <port>}. */
    static final String READY = "LISTENING ";
    private static final long START_SECONDS = 60;

    private final Process process;
    private final int port;

    private LoopbackServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static LoopbackServer start() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (LoopbackServer.class.getModule().isNativeAccessEnabled()) {
            command.add("--enable-native-access=ALL-UNNAMED"); // the same UDP backend on both sides
        }
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("slime4j."))
                .forEach(k -> command.add("-D" + k + "=" + System.getProperty(k)));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "perf", "--server",
                "--bind", "127.0.0.1", "--port", "0", "--child"));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BlockingQueue<String> lines = new ArrayBlockingQueue<>(64);
        Thread.ofPlatform().daemon().name("perf-server-output").start(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.offer(line);
                }
            } catch (IOException e) {
                // the child ended
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(READY)) {
                return new LoopbackServer(process, Integer.parseInt(line.substring(READY.length()).strip()));
            }
            if (line == null && !process.isAlive()) {
                throw new CliException("the loopback server process exited (code " + process.exitValue()
                        + ") before it listened");
            }
        }
        process.destroyForcibly();
        throw new CliException("the loopback server process did not listen within " + START_SECONDS + " s");
    }

    /** Its bootstrap port on 127.0.0.1. */
    int port() {
        return port;
    }

    /** Ends the child: closes its stdin, waits up to 10 s, then kills it. */
    @Override
    public void close() {
        try {
            process.getOutputStream().close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
