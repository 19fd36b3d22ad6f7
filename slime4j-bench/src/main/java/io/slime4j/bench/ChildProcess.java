package io.slime4j.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A child JVM running a served side of a benchmark, with a line handshake; always stopped on close. */
final class ChildProcess implements AutoCloseable {
    private final Process process;
    final Handshake handshake;

    ChildProcess(Class<?> main, String... args) throws IOException {
        this(List.of(), main, args);
    }

    /** As above behind {@code prefix}, e.g. {@code ip netns exec NAME} (which execs the JVM). */
    ChildProcess(List<String> prefix, Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx1g");
        if (ChildProcess.class.getModule().isNativeAccessEnabled()) {
            command.add("--enable-native-access=ALL-UNNAMED"); // the same udp backend on both sides
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        handshake = new Handshake(
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)),
                new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8));
    }

    @Override
    public void close() throws IOException {
        handshake.send("QUIT");
        reap(process);
    }

    /**
     * Waits up to 5 s for a process told to end, then kills it and waits up to 5 s more; an
     * interrupt kills it at once (the interrupt is kept).
     */
    static void reap(Process process) {
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
