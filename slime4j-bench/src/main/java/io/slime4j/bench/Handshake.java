package io.slime4j.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;

/** Line-based exchange between the benchmark and its child over the child's stdin and stdout. */
final class Handshake {
    private final BufferedReader in;
    private final PrintStream out;

    Handshake(BufferedReader in, PrintStream out) {
        this.in = in;
        this.out = out;
    }

    void send(String line) {
        out.println(line);
        out.flush();
    }

    /** Reads the next line that starts with {@code tag}, returning the rest; fails on end of stream. */
    String expect(String tag) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith(tag + " ")) {
                return line.substring(tag.length() + 1);
            }
            if (line.equals(tag)) {
                return "";
            }
        }
        throw new IOException("peer closed before sending " + tag);
    }
}
