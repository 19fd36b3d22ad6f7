package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.engine.directory.FileDirectory;
import io.slime4j.engine.directory.PeerRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeersCommandTest {
    @TempDir
    Path folder;

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void peersListsLiveEnginesOnePerLineWithTheirRegions() {
        FileDirectory dir = new FileDirectory(folder);
        Map<String, Long> regions = new LinkedHashMap<>();
        regions.put("kv", 4096L);
        regions.put("log", 65536L);
        dir.publish(new PeerRecord("B", 42, "127.0.0.1:5000", "h1", regions), Duration.ofSeconds(30));
        dir.publish(new PeerRecord("A", 7, "127.0.0.1:5001", "h1", Map.of(), "boot-1/11/12", List.of("shm", "network")),
                Duration.ofSeconds(30));
        Run r = run("peers", "--directory", "file:" + folder);
        assertThat(r.code()).isZero();
        assertThat(r.out().lines()).containsExactly("A", "B kv=4096 log=65536");
        Run detailed = run("peers", "--directory", "file:" + folder, "--long");
        assertThat(detailed.out().lines()).containsExactly(
                "A incarnation=7 bootstrap=127.0.0.1:5001 host=h1 identity=boot-1/11/12 transports=shm,network",
                "B incarnation=42 bootstrap=127.0.0.1:5000 host=h1 transports=network kv=4096 log=65536");
    }

    @Test
    void anUnreachableOrMalformedDirectoryIsOneLineNamingIt() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Run r = run("peers", "--directory", "redis://127.0.0.1:" + port);
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().lines()).hasSize(1).first().asString().contains("redis://127.0.0.1:" + port);
        Run bad = run("peers", "--directory", "zookeeper://h:1");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("unknown scheme");
    }
}
