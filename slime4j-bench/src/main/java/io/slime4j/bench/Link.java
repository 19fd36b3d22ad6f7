package io.slime4j.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;

/**
 * A side's line channel to the {@link Compare} harness over stdin/stdout. Lines to the harness:
 * {@code PEER text} (relayed to the other side as {@code text}), {@code RESULT metric value},
 * {@code NOTE text}, {@code SKIP reason} and {@code DONE}. Every wait is bounded; the end of stdin
 * (the harness died) ends the process.
 */
final class Link {
    private static final String EOF = "\u0000eof";
    private final LinkedBlockingDeque<String> lines = new LinkedBlockingDeque<>();
    private final PrintStream out;
    private final long timeoutNanos;
    /** Set before the side says DONE and exits normally (letting its exit hooks run). */
    volatile boolean finished;

    /** Starts the stdin reader; waits for peer lines at most {@code timeoutSeconds} each. */
    Link(PrintStream out, long timeoutSeconds) {
        this.out = out;
        this.timeoutNanos = TimeUnit.SECONDS.toNanos(timeoutSeconds);
        Thread.ofPlatform().daemon().name("link-stdin").start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // fall through: treated as end of input
            }
            lines.add(EOF);
            if (!finished) {
                Runtime.getRuntime().halt(4); // the harness is gone: nobody reads this side any more
            }
        });
    }

    synchronized void send(String line) {
        out.println(line);
        out.flush();
    }

    void toPeer(String line) {
        send("PEER " + line);
    }

    /** The column variant of the next results (empty: the system's own column). */
    volatile String variant = "";

    /** Set while a side warms up: its results ({@link #result}) and notes are dropped. */
    volatile boolean muted;

    void result(String metric, double value) {
        if (muted) {
            return;
        }
        send("RESULT " + metric + (variant.isEmpty() ? "" : "@" + variant) + " " + value);
    }

    void note(String text) {
        if (muted) {
            return;
        }
        send("NOTE " + text);
    }

    /** The rest of the next line from the peer that starts with {@code tag}; fails after the timeout. */
    String fromPeer(String tag) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new IOException("no '" + tag + "' from the peer within " + timeoutNanos / 1_000_000_000L + " s");
            }
            if (line.equals(EOF)) {
                throw new IOException("the harness closed the link while waiting for '" + tag + "'");
            }
            if (line.equals(tag)) {
                return "";
            }
            if (line.startsWith(tag + " ")) {
                return line.substring(tag.length() + 1);
            }
        }
    }

    /** True if the next line from the peer is {@code tag} (and takes it); never waits. */
    boolean poll(String tag) throws IOException {
        String line = lines.peekFirst();
        if (line == null) {
            return false;
        }
        if (line.equals(EOF)) {
            throw new IOException("the harness closed the link while waiting for '" + tag + "'");
        }
        if (line.equals(tag)) {
            lines.pollFirst();
            return true;
        }
        return false;
    }

    /** Both sides meet here before a workload: each tells the other and waits for it. */
    void barrier(String name) throws IOException, InterruptedException {
        toPeer("SYNC " + name);
        fromPeer("SYNC " + name);
    }
}
