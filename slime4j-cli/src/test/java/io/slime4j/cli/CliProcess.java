package io.slime4j.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The real {@code slime4j} command in a child JVM, as the launcher runs it ({@code java -cp ...
 * io.slime4j.cli.Main ARGS}), optionally behind a prefix such as {@code ip netns exec NS}; its
 * stdout and stderr are collected line by line. Always killed on close.
 */
final class CliProcess implements AutoCloseable {
    private final Process process;
    private final List<String> out = new ArrayList<>();
    private final List<String> err = new ArrayList<>();

    private CliProcess(Process process) {
        this.process = process;
        pump(process.getInputStream(), out);
        pump(process.getErrorStream(), err);
    }

    static CliProcess start(String... args) throws IOException {
        return start(List.of(), args);
    }

    static CliProcess start(List<String> prefix, String... args) throws IOException {
        return start(prefix, java.util.Map.of(), args);
    }

    static CliProcess start(List<String> prefix, java.util.Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx512m", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        return new CliProcess(pb.start());
    }

    private static void pump(InputStream stream, List<String> lines) {
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
        });
    }

    /** Waits up to {@code seconds} for the exit; returns the exit code, or fails (and kills) on a timeout. */
    int exit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            kill();
            throw new AssertionError("slime4j did not exit within " + seconds + " s; stdout:\n" + String.join("\n", out())
                    + "\nstderr:\n" + String.join("\n", err()));
        }
        Thread.sleep(100); // let the pumps drain
        synchronized (out) {
            synchronized (err) {
                return process.exitValue();
            }
        }
    }

    /** Waits up to {@code seconds} for a stdout line matching {@code p}. */
    String awaitOut(Predicate<String> p, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (out) {
            while (true) {
                for (String line : out) {
                    if (p.test(line)) {
                        return line;
                    }
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new AssertionError("no such line within " + seconds + " s; stdout:\n" + String.join("\n", out)
                            + "\nstderr:\n" + String.join("\n", err()));
                }
                out.wait(left);
            }
        }
    }

    List<String> out() {
        synchronized (out) {
            return List.copyOf(out);
        }
    }

    List<String> err() {
        synchronized (err) {
            return List.copyOf(err);
        }
    }

    /** Everything it printed, for assertion messages. */
    String transcript() {
        return "stdout:\n" + String.join("\n", out()) + "\nstderr:\n" + String.join("\n", err());
    }

    /** Kills it at once (SIGKILL), as a crash would. */
    void kill() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }
}
