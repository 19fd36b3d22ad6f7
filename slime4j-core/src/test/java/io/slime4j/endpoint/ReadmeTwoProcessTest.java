package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's two-process example, taken from README.md as written (the fenced block after the
 * marker comment), saved as {@code TwoProcesses.java} and run with the JDK's source launcher in two
 * JVMs — a server and a client over the UDP wire — exactly as the README tells a user to.
 */
class ReadmeTwoProcessTest {
    static final String MARKER = "<!-- ReadmeTwoProcessTest runs the next block as written -->";

    /** The block after {@link #MARKER} in README.md. */
    static String example() throws IOException {
        Path readme = Path.of("..", "README.md");
        List<String> lines = Files.readAllLines(readme, StandardCharsets.UTF_8);
        int at = lines.indexOf(MARKER);
        assertThat(at).as("README.md has the marker %s", MARKER).isNotNegative();
        assertThat(lines.get(at + 1)).isEqualTo("```java");
        StringBuilder code = new StringBuilder();
        for (int i = at + 2; !lines.get(i).equals("```"); i++) {
            code.append(lines.get(i)).append('\n');
        }
        return code.toString();
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void theReadmesTwoProcessExampleRunsAsWritten(@TempDir Path dir) throws Exception {
        String code = example();
        assertThat(code).contains("public class TwoProcesses", "Bootstrap.serve", "Bootstrap.connect", "UdpWire",
                "SoftDevice", "Arena", "RdmaEndpoint");
        Path source = Files.writeString(dir.resolve("TwoProcesses.java"), code);
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Process server = launch(dir, source, "server", Integer.toString(port));
        Process client = launch(dir, source, "client", "127.0.0.1", Integer.toString(port));
        try {
            assertThat(client.waitFor(180, TimeUnit.SECONDS)).as("the client finished").isTrue();
            assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("the server finished").isTrue();
            String clientOut = Files.readString(dir.resolve("client.out"));
            String serverOut = Files.readString(dir.resolve("server.out"));
            assertThat(client.exitValue()).as("client exit; output:%n%s", clientOut).isZero();
            assertThat(server.exitValue()).as("server exit; output:%n%s", serverOut).isZero();
            assertThat(clientOut).contains("client: wrote 16 MiB, read 1 MiB back");
            assertThat(serverOut).contains("server: 16 MiB arrived intact");
        } finally {
            client.destroyForcibly();
            server.destroyForcibly();
        }
    }

    /** {@code java --enable-native-access=ALL-UNNAMED -cp CP TwoProcesses.java ARGS}, as the README says. */
    private static Process launch(Path dir, Path source, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                source.toString()));
        command.addAll(List.of(args));
        Path out = dir.resolve(args[0] + ".out");
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }
}
