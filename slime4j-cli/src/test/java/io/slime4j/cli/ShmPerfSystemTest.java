package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code slime4j perf --wire shm} as a user runs it: the command and its loopback server in two
 * processes on this host, through shm devices and shared memory; every byte verified where it
 * landed, 1 byte to 64 MiB (the acceptance run), and every operation in both modes.
 */
class ShmPerfSystemTest {
    private static List<Map<String, String>> rows(CliProcess p) {
        return p.out().stream().filter(l -> l.startsWith("{")).map(Json::object).toList();
    }

    @Test
    @Timeout(420)
    void verifyOverEverySizeFrom1ByteTo64MiBIsByteExactBetweenTwoProcesses() throws Exception {
        try (CliProcess p = CliProcess.start("perf", "--wire", "shm", "--verify", "--json", "--sizes", "1:64M")) {
            assertThat(p.exit(360)).as(p.transcript()).isZero();
            List<Map<String, String>> rows = rows(p);
            assertThat(rows).as(p.transcript()).hasSize(27);
            for (int i = 0; i < rows.size(); i++) {
                assertThat(rows.get(i)).containsEntry("op", "write").containsEntry("wire", "shm")
                        .containsEntry("bytes", Long.toString(1L << i)).containsEntry("verified", "true");
            }
        }
    }

    @ParameterizedTest(name = "--op {0}")
    @ValueSource(strings = {"read", "write-imm", "send"})
    @Timeout(240)
    void everyOperationIsVerifiedInBothModes(String op) throws Exception {
        try (CliProcess bw = CliProcess.start("perf", "--wire", "shm", "--op", op, "--verify", "--json", "--sizes",
                "16:1M", "--iters", "32", "--depth", "8")) {
            assertThat(bw.exit(200)).as(bw.transcript()).isZero();
            assertThat(rows(bw)).hasSize(17).allSatisfy(r -> assertThat(r).containsEntry("op", op)
                    .containsEntry("wire", "shm").containsEntry("verified", "true"));
        }
        try (CliProcess lat = CliProcess.start("perf", "--wire", "shm", "--op", op, "--mode", "lat", "--verify",
                "--json", "--size", "64", "--iters", "200")) {
            assertThat(lat.exit(200)).as(lat.transcript()).isZero();
            assertThat(rows(lat)).singleElement().satisfies(r -> assertThat(r).containsEntry("mode", "lat")
                    .containsEntry("verified", "true"));
        }
    }
}
