package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void demoMovesAndVerifiesDataUnderLoss() {
        assertThat(run("demo", "--size", "1M", "--loss", "5")).isEqualTo(0);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("RDMA_WRITE").contains("RDMA_READ").contains("SEND_WITH_IMM")
                .contains("verified").doesNotContain("MISMATCH");
    }

    @Test
    void badArgumentsGiveOneLineErrorsAndExitCode2() {
        assertThat(run("demo", "--size", "12Q")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8).strip()).isEqualTo(
                "slime4j demo: not a size: '12Q' (examples: 4096, 64K, 16M)");
        err.reset();
        assertThat(run("bogus")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown command 'bogus'");
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
