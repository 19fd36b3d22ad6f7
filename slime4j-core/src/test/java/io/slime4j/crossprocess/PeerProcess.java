package io.slime4j.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.RemoteRegion;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link PeerMain} in a child JVM (the current {@code java} binary and class path), driven over
 * its stdin and stdout. Every wait is bounded; {@link #close()} kills the child if it has not
 * exited and waits (bounded) until it is gone. The child's stderr goes to a file whose tail is
 * shown when a reply is missing or wrong.
 */
final class PeerProcess implements AutoCloseable {
    private static final long REPLY_TIMEOUT_SECONDS = 60;
    private static final String EOF = "\u0000EOF";

    private final Process process;
    private final PrintStream in;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path stderr;
    /** The child's queue pair, from its first line. */
    final QpInfo info;

    /** Starts a child with {@link PeerMain}'s options, e.g. {@code --ack-timeout-ms 20}. */
    PeerProcess(String... options) throws IOException {
        this(List.of(), options);
    }

    /**
     * Starts a child as above behind {@code prefix}, e.g. {@code ip netns exec NAME} to run it in a
     * network namespace (which execs the JVM, so the process is the child JVM itself).
     */
    PeerProcess(List<String> prefix, String... options) throws IOException {
        stderr = Files.createTempFile("slime4j-peer-", ".log");
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                PeerMain.class.getName()));
        command.addAll(List.of(options));
        process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread.ofPlatform().daemon().name("peer-stdout-" + process.pid()).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the child is gone
            } finally {
                lines.add(EOF);
            }
        });
        try {
            String[] qp = reply("QP").split(" ");
            info = new QpInfo(qp[1], Integer.parseInt(qp[2]), Integer.parseInt(qp[3]), Long.parseLong(qp[4]));
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** The child process. */
    Process process() {
        return process;
    }

    /** Sends one command and returns its reply, which must start with {@code expectedPrefix}. */
    String call(String command, String expectedPrefix) {
        in.println(command);
        return reply(expectedPrefix);
    }

    /** Registers a zeroed region in the child and returns how to reach it. */
    RemoteRegion region(String name, long size) {
        String[] r = call("REGION " + name + " " + size, "REGION").split(" ");
        return new RemoteRegion(Long.parseLong(r[2]), Long.parseLong(r[3]), Long.parseLong(r[4]));
    }

    private String reply(String expectedPrefix) {
        String line;
        try {
            line = lines.poll(REPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for the peer", e);
        }
        assertThat(line).as("reply of the peer (%s expected) within %d s; its stderr: %s", expectedPrefix,
                REPLY_TIMEOUT_SECONDS, stderrTail()).isNotNull().isNotEqualTo(EOF);
        assertThat(line).as("reply of the peer; its stderr: %s", stderrTail()).startsWith(expectedPrefix);
        return line;
    }

    /** The last lines the child wrote to stderr. */
    String stderrTail() {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - 20), all.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** Kills the child at once (SIGKILL) and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("the killed peer exited").isTrue();
    }

    /** Asks the child to exit, kills it if it does not within a few seconds, and removes its log. */
    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                in.println("EXIT");
                in.close();
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
            try {
                Files.deleteIfExists(stderr);
            } catch (IOException ignored) {
                // a temporary file
            }
        }
    }
}
