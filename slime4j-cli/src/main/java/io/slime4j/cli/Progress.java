package io.slime4j.cli;

import java.io.Console;
import java.io.PrintStream;

/**
 * A one-line progress indication on stderr ({@code write 4 MiB  37/64}), redrawn twice a second
 * and erased at the end of each row; only when the command runs on a terminal, so logs and pipes
 * stay clean.
 */
final class Progress implements AutoCloseable {
    private final PrintStream err;
    private final boolean enabled;
    private volatile String label = "";
    private volatile long done;
    private volatile long total;
    private Thread painter;

    Progress(PrintStream err, boolean enabled) {
        this.err = err;
        this.enabled = enabled;
    }

    /** Enabled when this process has a terminal (stdin and stdout), not when it is piped or run by a test. */
    static boolean onTerminal() {
        Console console = System.console();
        return console != null && console.isTerminal();
    }

    void start(String label, long total) {
        this.label = label;
        this.total = total;
        this.done = 0;
        if (enabled && painter == null) {
            painter = Thread.ofPlatform().daemon().name("perf-progress").start(this::paint);
        }
    }

    void set(long done) {
        this.done = done;
    }

    /** Erases the line (between rows). */
    void clear() {
        if (enabled) {
            synchronized (this) {
                label = "";
                err.print("\r" + " ".repeat(60) + "\r");
                err.flush();
            }
        }
    }

    private void paint() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(500);
                synchronized (this) {
                    if (!label.isEmpty()) {
                        err.printf("\r  %-24s %d/%d ", label, done, total);
                        err.flush();
                    }
                }
            }
        } catch (InterruptedException e) {
            // closed
        }
    }

    @Override
    public void close() {
        if (painter != null) {
            painter.interrupt();
        }
        clear();
    }
}
