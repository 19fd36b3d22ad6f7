package io.slime4j.engine;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;

/** The answer lines of a child JVM driven by a test: lines starting with {@code @}, in order. */
final class ChildAnswers {
    private ChildAnswers() {}

    /** Starts a virtual thread copying {@code child}'s {@code @}-lines into {@code answers} until its output ends. */
    static void pump(Process child, BlockingQueue<String> answers) {
        Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    if (l.startsWith("@")) {
                        answers.add(l);
                    }
                }
            } catch (Exception ignored) {
                // the process ended
            }
        });
    }
}
