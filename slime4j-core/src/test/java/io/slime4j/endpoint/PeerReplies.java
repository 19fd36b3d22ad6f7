package io.slime4j.endpoint;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The reply lines of a peer process ({@link PeerChild}), in the order it printed them. A peer
 * answers a command and reports its ops' outcomes asynchronously, so a reply can come before or
 * after another one; {@link #expect} takes the oldest line with the asked-for prefix and keeps every
 * other line for a later {@code expect} — no reply is ever dropped. Every wait is bounded.
 */
final class PeerReplies {
    private final BlockingQueue<String> arriving = new ArrayBlockingQueue<>(4096);
    /** Lines read but not yet taken, oldest first (only the test thread touches it). */
    private final List<String> kept = new ArrayList<>();

    /** The reader thread: one line the peer printed (waits, bounded by the queue's room, if 4096 are unread). */
    void add(String line) throws InterruptedException {
        arriving.put(line);
    }

    /** Adds the child's output lines until it ends (the body of a reader thread). */
    void readFrom(Process child) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                add(line);
            }
        } catch (IOException | InterruptedException e) {
            // the child ended
        }
    }

    /**
     * The rest of the oldest unread line starting with {@code prefix}; lines with other prefixes stay
     * for later calls. Fails (AssertionError, naming the lines kept) when none came within {@code bound}.
     */
    String expect(String prefix, Duration bound) throws InterruptedException {
        for (Iterator<String> it = kept.iterator(); it.hasNext(); ) {
            String line = it.next();
            if (line.startsWith(prefix)) {
                it.remove();
                return line.substring(prefix.length());
            }
        }
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            String line = arriving.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("no line starting with '" + prefix + "' from the peer within " + bound
                        + "; lines read and not taken: " + kept);
            }
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length());
            }
            kept.add(line);
        }
    }
}
