package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged CLI jar (run after {@code package}, by the {@code packaged-jar} surefire execution):
 * {@code java -jar} starts it with no flag, and its manifest grants native access, so the UDP wire
 * runs its native backend without a warning.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExecutableJarIT {

    private static Path jar() {
        String path = System.getProperty("slime4j.cli.jar");
        assertThat(path).as("system property slime4j.cli.jar (set by the pom's packaged-jar execution)").isNotNull();
        Path jar = Path.of(path);
        assertThat(jar).as("the packaged jar").exists();
        return jar;
    }

    @Test
    void theManifestNamesTheMainClassTheLibrariesAndNativeAccess() throws Exception {
        try (JarFile jar = new JarFile(jar().toFile())) {
            Attributes main = jar.getManifest().getMainAttributes();
            assertThat(main.getValue("Main-Class")).isEqualTo(Main.class.getName());
            assertThat(main.getValue("Enable-Native-Access")).isEqualTo("ALL-UNNAMED");
            assertThat(main.getValue("Class-Path")).contains("lib/slime4j-core-", "lib/picocli-");
        }
    }

    @Test
    void javaDashJarRunsWithNoFlagAndTheNativeUdpBackend(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar().toString(), "info")).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("slime4j info finished").isTrue();
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("exit status; output:%n%s", text).isZero();
        assertThat(text).contains("backend native").doesNotContain("restricted method")
                .doesNotContain("native not available");
    }
}
