package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Layers stay clean: the endpoint uses only the verbs API (so it runs unchanged on any verbs
 * implementation), the shm engine uses only the verbs API, the engines' shared internals and the
 * JDK (never soft or a wire), and those internals use nothing of slime4j but the verbs API.
 */
class LayeringTest {
    @Test
    void theEndpointImportsNothingFromTheEngineOrTheWires() throws IOException {
        assertThat(offending("endpoint", l -> l.contains("io.slime4j.verbs") || l.contains("io.slime4j.endpoint")))
                .as("references outside io.slime4j.verbs").isEmpty();
    }

    @Test
    void theShmEngineImportsOnlyTheVerbsApiAndTheEnginesInternals() throws IOException {
        assertThat(offending("shm", l -> l.contains("io.slime4j.verbs") || l.contains("io.slime4j.shm")
                || l.contains("io.slime4j.internal")))
                .as("references of io.slime4j.shm outside io.slime4j.verbs and io.slime4j.internal").isEmpty();
    }

    @Test
    void theEnginesInternalsImportOnlyTheVerbsApi() throws IOException {
        assertThat(offending("internal", l -> l.contains("io.slime4j.verbs") || l.contains("io.slime4j.internal")))
                .as("references of io.slime4j.internal outside io.slime4j.verbs").isEmpty();
    }

    @Test
    void theSoftEngineAndTheWiresDoNotReachIntoTheShmEngine() throws IOException {
        for (String pkg : List.of("soft", "wire", "wire/udp", "wire/inproc", "verbs", "internal")) {
            assertThat(offending(pkg, l -> !l.contains("io.slime4j.shm"))).as("references of %s to io.slime4j.shm", pkg)
                    .isEmpty();
        }
    }

    /** Lines of the package's sources naming an io.slime4j type that {@code allowed} does not accept. */
    private static List<String> offending(String pkg, Predicate<String> allowed) throws IOException {
        Path dir = Path.of("src/main/java/io/slime4j", pkg);
        assertThat(dir).isDirectory();
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".java")).flatMap(f -> {
                try {
                    return Files.readAllLines(f).stream().filter(l -> l.contains("io.slime4j.")
                                    && !l.startsWith("package ") && !allowed.test(l))
                            .map(l -> f.getFileName() + ": " + l.strip());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).toList();
        }
    }
}
