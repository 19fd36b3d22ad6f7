package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The endpoint uses only the verbs API: it must run unchanged on any verbs implementation. */
class LayeringTest {
    @Test
    void theEndpointImportsNothingFromTheEngineOrTheWires() throws IOException {
        Path dir = Path.of("src/main/java/io/slime4j/endpoint");
        assertThat(dir).isDirectory();
        List<String> offending;
        try (Stream<Path> files = Files.list(dir)) {
            offending = files.filter(f -> f.toString().endsWith(".java")).flatMap(f -> {
                try {
                    return Files.readAllLines(f).stream().filter(l -> l.contains("io.slime4j.")
                            && !l.startsWith("package ") && !l.contains("io.slime4j.verbs") && !l.contains("io.slime4j.endpoint"))
                            .map(l -> f.getFileName() + ": " + l.strip());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).toList();
        }
        assertThat(offending).as("references outside io.slime4j.verbs").isEmpty();
    }
}
