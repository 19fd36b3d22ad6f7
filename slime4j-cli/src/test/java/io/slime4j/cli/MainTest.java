package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.shm.HostIdentity;
import io.slime4j.wire.udp.UdpConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The command in this JVM: parsing, help, info, demo, and perf on the in-process wire. */
@Timeout(120)
class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "--op {0}")
    @ValueSource(strings = {"write", "read", "write-imm", "send"})
    void perfOnTheInprocWireVerifiesEveryOperationInBothModes(String op) {
        assertThat(run("perf", "--wire", "inproc", "--op", op, "--verify", "--json", "--sizes", "1:64K", "--iters", "20",
                "--warmup", "2")).as(err()).isEqualTo(0);
        assertThat(run("perf", "--wire", "inproc", "--op", op, "--mode", "lat", "--verify", "--json", "--size", "64",
                "--iters", "20")).as(err()).isEqualTo(0);
        List<String> rows = out().lines().toList();
        assertThat(rows).hasSize(18).allSatisfy(r -> assertThat(Json.object(r)).containsEntry("op", op)
                .containsEntry("verified", "true").containsEntry("wire", "inproc"));
        assertThat(err()).isEmpty();
    }

    @Test
    void perfHelpNamesEveryOption() {
        assertThat(run("perf", "--help")).isEqualTo(0);
        assertThat(out()).contains("--server", "--bind", "--port", "--connect", "--op", "--mode", "--size", "--sizes",
                "--iters", "--warmup", "--depth", "--qps", "--selector", "--signal-every", "--wire", "--verify", "--json",
                "--timeout", "--busy-poll", "--debug", "ib_write_bw").doesNotContain("--child");
    }

    @Test
    void badArgumentsGiveOneLineErrorsAndExitCode2() {
        String[][] cases = {
            {"perf", "--op", "atomic"}, {"perf", "--mode", "fast"}, {"perf", "--sizes", "64K"}, {"perf", "--sizes", "1M:4K"},
            {"perf", "--size", "2G"}, {"perf", "--depth", "0"}, {"perf", "--qps", "65"}, {"perf", "--iters", "x"},
            {"perf", "--wire", "rdma"}, {"perf", "--bogus"}, {"perf", "--server", "--op", "read"}, {"perf", "--port", "1"},
            {"perf", "--mode", "lat", "--depth", "4"}, {"perf", "--size", "1K", "--sizes", "1:2"},
            {"perf", "--signal-every", "0"}, {"perf", "--selector", "stripe"}, {"perf", "--connect", ":1"},
            {"perf", "--wire", "inproc", "--connect", "h:1"}, {"perf", "--wire", "shm", "--connect", "h:1"},
            {"perf", "--server", "--busy-poll"}, {"perf", "--busy-poll", "--directory", "file:/tmp/x", "--name", "a",
                "--peer", "b"},
            {"demo", "--size", "12Q"}, {"bogus"}};
        for (String[] c : cases) {
            err.reset();
            assertThat(run(c)).as(String.join(" ", c)).isEqualTo(2);
            assertThat(err().lines().toList()).as(String.join(" ", c)).singleElement().asString()
                    .startsWith("slime4j").contains("--help").doesNotContain("Exception");
        }
        err.reset();
        run("perf", "--selector", "stripe");
        assertThat(err().strip()).isEqualTo("slime4j perf: unknown QP selector 'stripe'; known: single, round-robin,"
                + " round-robin-all, striped (see: slime4j perf --help)");
        err.reset();
        run("demo", "--size", "12Q");
        assertThat(err().strip()).isEqualTo(
                "slime4j demo: not a size: '12Q' (examples: 4096, 64K, 16M) (see: slime4j demo --help)");
    }

    @Test
    void failuresAreOneLineAndDebugAddsTheStackTrace() {
        assertThat(run("perf", "--connect", "127.0.0.1:1", "--timeout", "1")).isEqualTo(1);
        assertThat(err().lines().toList()).singleElement().asString()
                .startsWith("slime4j perf: cannot reach 127.0.0.1:1 within 1 s");
        err.reset();
        assertThat(run("perf", "--connect", "127.0.0.1:1", "--timeout", "1", "--debug")).isEqualTo(1);
        assertThat(err()).contains("BootstrapException", "at io.slime4j.endpoint.Bootstrap.connect")
                .contains("slime4j perf: cannot reach 127.0.0.1:1 within 1 s");
    }

    @Test
    void infoShowsEverySettingWithItsValueAndSource() {
        System.setProperty("slime4j.udp.sendBufferSize", "8m");
        try {
            assertThat(run("info")).isEqualTo(0);
        } finally {
            System.clearProperty("slime4j.udp.sendBufferSize");
        }
        String text = out();
        assertThat(text).contains("JDK      " + Runtime.version(), "udp      available", "inproc   available",
                "shm      available (two processes on this host", "host identity " + HostIdentity.current().toText());
        assertThat(text).as("the datagram size chosen per interface and the offloads")
                .containsPattern("mtu \\d+: datagrams up to \\d+ bytes, payload \\d+").contains("udp offloads  gso ");
        for (var s : List.of(UdpConfig.environmentSettings(), EndpointConfig.environmentSettings())) {
            s.forEach((property, variable) -> assertThat(text).containsPattern(
                    "(?m)^  " + java.util.regex.Pattern.quote(property) + " +" + variable + " +\\S+ +\\S"));
        }
        assertThat(text).containsPattern("slime4j.udp.sendBufferSize +SLIME4J_UDP_SEND_BUFFER_SIZE +8388608 +system property")
                .containsPattern("slime4j.endpoint.ioSlots +SLIME4J_ENDPOINT_IO_SLOTS +256 +default")
                .containsPattern("slime4j.endpoint.maxRequestBytes +SLIME4J_ENDPOINT_MAX_REQUEST_BYTES +0 \\(the device's: 1 MiB");
    }

    @Test
    void infoReportsAnInvalidSettingAndExits1() {
        System.setProperty("slime4j.endpoint.qps", "many");
        try {
            assertThat(run("info")).isEqualTo(1);
        } finally {
            System.clearProperty("slime4j.endpoint.qps");
        }
        assertThat(out()).contains("many (invalid)").contains("INVALID: qps must be an integer, was 'many'");
    }

    @Test
    void demoMovesAndVerifiesDataUnderLoss() {
        assertThat(run("demo", "--size", "1M", "--loss", "5")).isEqualTo(0);
        assertThat(out()).contains("RDMA_WRITE").contains("RDMA_READ").contains("SEND_WITH_IMM")
                .contains("verified").doesNotContain("MISMATCH");
    }

    @Test
    void withoutACommandItShowsTheOverview() {
        assertThat(run()).isEqualTo(0);
        assertThat(out()).contains("slime4j perf", "perf", "info", "demo");
    }

    @Test
    void sizesParseSuffixes() {
        assertThat(Sizes.parse("4096")).isEqualTo(4096);
        assertThat(Sizes.parse("64K")).isEqualTo(64 << 10);
        assertThat(Sizes.parse("16m")).isEqualTo(16 << 20);
        assertThat(Sizes.format(16 << 20)).isEqualTo("16 MiB");
        assertThatThrownBy(() -> Sizes.parse("-1")).isInstanceOf(IllegalArgumentException.class);
    }
}
