package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.wire.inproc.InprocWire;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ten lines at the top of docs/ENDPOINT.md and under "Using the transfer engine" in the README,
 * compiled and run; a second test checks that both documents still show exactly these lines.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReadmeSnippetTest {
    @Test
    void theReadmeSnippetWorks() {
        try (InprocWire wire = new InprocWire();
             SoftDevice deviceA = SoftDevice.open(wire, "readme-a", SoftConfig.defaults());
             SoftDevice deviceB = SoftDevice.open(wire, "readme-b", SoftConfig.defaults());
             Arena arena = Arena.ofShared()) {
            // --- snippet: docs/ENDPOINT.md ---
            RdmaEndpoint a = RdmaEndpoint.open(deviceA, EndpointConfig.defaults());
            RdmaEndpoint b = RdmaEndpoint.open(deviceB, EndpointConfig.defaults());
            a.register("kv", arena.allocate(1 << 20));
            b.register("kv", arena.allocate(1 << 20));
            a.connect(EndpointInfo.fromJson(b.info().toJson()));         // exchange info out of band
            b.connect(EndpointInfo.fromJson(a.info().toJson()));
            a.write(Assignment.local("kv", 0).remote("kv", 0).length(4096)).join(); // one-sided: a.kv -> b.kv
            TransferFuture r = b.recv("kv", 8192, 4096);                  // two-sided: b waits for a's send
            a.send("kv", 0, 4096).join();
            r.join();                                                     // r.byteCount() == 4096
            // --- end of snippet ---
            assertThat(r.byteCount()).isEqualTo(4096);
            a.close();
            b.close();
        }
    }

    @Test
    void theReadmeAndTheEndpointDocShowExactlyTheseLines() throws java.io.IOException {
        java.nio.file.Path self = java.nio.file.Path.of("src", "test", "java", "io", "slime4j", "endpoint",
                "ReadmeSnippetTest.java");
        List<String> source = java.nio.file.Files.readAllLines(self);
        int from = source.indexOf("            // --- snippet: docs/ENDPOINT.md ---");
        int to = source.indexOf("            // --- end of snippet ---");
        assertThat(from).isNotNegative();
        assertThat(to).isGreaterThan(from + 1);
        String snippet = String.join("\n", source.subList(from + 1, to).stream().map(l -> l.substring(12)).toList());
        for (String doc : new String[] {"../README.md", "../docs/ENDPOINT.md"}) {
            assertThat(java.nio.file.Files.readString(java.nio.file.Path.of(doc))).as(doc).contains(snippet);
        }
    }
}
