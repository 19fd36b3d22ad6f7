package io.slime4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsTest {
    private final CompareOptions options = CompareOptions.parse(new String[] {"--bandwidth-sizes", "1M"});

    private Results sample() {
        Results r = new Results(List.of("slime4j", "aeron", "jucx", "tcp"));
        r.put("slime4j", "rate.32", 50_000);
        r.put("slime4j@imm", "rate.32", 25_000);
        r.put("tcp", "rate.32", 125_000);
        r.put("slime4j", "bw.1048576", 1000);
        r.put("tcp", "bw.1048576", 4000);
        r.put("slime4j", "rtt.p50", 40);
        r.put("aeron", "rtt.p50", 20);
        r.skip("jucx", "JUCX/UCX not usable: no libucp");
        r.note("udp bw.1048576: 3.0% of datagrams lost");
        return r;
    }

    @Test
    void cellsShowTheFigureAndItsRatioToSlime4j() {
        String md = sample().markdown(options);
        assertThat(md).contains("| slime4j | slime4j write-with-imm | Aeron | JUCX | NIO TCP |");
        assertThat(md).contains("| 32 B message rate | k msg/s | 50.0 | 25.0 (×0.500) | — | skipped | 125 (×2.50) |");
        assertThat(md).contains("| 1 MiB one-sided write | MB/s | 1000 | — | — | skipped | 4000 (×4.00) |");
        assertThat(md).contains("| 64 B round trip p50 | µs | 40.0 | — | 20.0 (×0.500) | skipped | — |");
    }

    @Test
    void skippedSystemsAreListedWithTheirReasonAndNotesFollow() {
        String md = sample().markdown(options);
        assertThat(md).contains("Skipped:\n\n- JUCX: JUCX/UCX not usable: no libucp\n");
        assertThat(md).contains("Notes:\n\n- udp bw.1048576: 3.0% of datagrams lost\n");
    }

    @Test
    void aFigureReportedTwiceIsRefused() {
        Results r = new Results(List.of("tcp"));
        r.put("tcp", "rate.32", 125_000);
        r.put("tcp@imm", "rate.32", 100_000);
        assertThatThrownBy(() -> r.put("tcp", "rate.32", 90_000)).hasMessageContaining("tcp reported rate.32 twice");
        assertThat(r.get("tcp", "rate.32")).as("the first stays").isEqualTo(125_000.0);
    }

    @Test
    void aKeptRunsResultsAreTakenInWhole() {
        Results run = new Results(List.of("slime4j"));
        run.put("slime4j", "rate.32", 50_000);
        run.put("slime4j@imm", "rate.32", 60_000);
        run.warmed("slime4j", 2);
        run.note("slime4j's note");
        Results skipped = new Results(List.of("jucx"));
        skipped.skip("jucx", "no libucp");
        Results all = new Results(List.of("slime4j", "jucx"));
        all.absorb(run);
        all.absorb(skipped);
        assertThat(all.get("slime4j", "rate.32")).isEqualTo(50_000);
        assertThat(all.get("slime4j@imm", "rate.32")).isEqualTo(60_000);
        assertThat(all.warmPasses("slime4j")).isEqualTo(2);
        assertThat(all.notes()).containsExactly("slime4j's note");
        assertThat(all.skipReason("jucx")).isEqualTo("no libucp");
        assertThatThrownBy(() -> all.absorb(run)).hasMessageContaining("reported rate.32 twice");
    }

    @Test
    void aSystemRefusedForAFigureReportedTwiceKeepsNoneOfItsFigures() {
        Results r = new Results(List.of("slime4j", "tcp"));
        r.put("slime4j", "rate.32", 50_000);
        r.put("slime4j@imm", "rate.32", 25_000);
        r.put("tcp", "rate.32", 125_000);
        r.refuse("slime4j", "slime4j reported rate.32 twice");
        assertThat(r.get("slime4j", "rate.32")).isNull();
        assertThat(r.get("slime4j@imm", "rate.32")).isNull();
        assertThat(r.get("tcp", "rate.32")).isEqualTo(125_000.0);
        assertThat(r.markdown(options)).contains("| 32 B message rate | k msg/s | skipped | skipped |")
                .contains("- slime4j: slime4j reported rate.32 twice");
    }

    @Test
    void theWarmUpPassesOfEverySystemMakeOneNote() {
        Results r = new Results(List.of("slime4j", "tcp"));
        r.warmed("slime4j", 1);
        r.warmed("tcp", 7);
        assertThat(r.markdown(options)).contains("Notes:\n\n- Untimed passes of the rate and round-trip workloads before the"
                + " timed one (`--warmup`): slime4j 1, NIO TCP 7.\n");
    }

    @Test
    void noRatioWithoutASlime4jFigure() {
        Results r = new Results(List.of("slime4j", "tcp"));
        r.put("tcp", "rate.32", 125_000);
        assertThat(r.markdown(options)).contains("| 32 B message rate | k msg/s | — | — | 125 |");
    }

    @Test
    void theShmDeviceHasItsOwnColumnsAndReadRowsWithMemcpyAsTheirBaseline() {
        Results r = new Results(List.of("slime4j", "shm", "memcpy"));
        r.put("shm", "bwread.1048576", 4000);
        r.put("memcpy", "bwread.1048576", 8000);
        r.put("memcpy@window", "bwread.1048576", 5000);
        r.put("shm@imm", "rate.32", 30_000);
        String md = r.markdown(options);
        assertThat(md).contains("| slime4j | slime4j write-with-imm | slime4j shm (same host) | slime4j shm write-with-imm"
                + " | memcpy | memcpy, same working set |");
        assertThat(md).contains("| 1 MiB one-sided read | MB/s | — | — | 4000 | — | 8000 | 5000 |");
        assertThat(md).contains("| 32 B message rate | k msg/s | — | — | — | 30.0 | — | — |");
    }

    @Test
    void numbersKeepAboutThreeSignificantDigits() {
        assertThat(Results.number(12345.6)).isEqualTo("12346");
        assertThat(Results.number(42.42)).isEqualTo("42.4");
        assertThat(Results.number(4.242)).isEqualTo("4.24");
        assertThat(Results.number(0.04242)).isEqualTo("0.042");
    }

    @Test
    void theMarkedRegionOfTheDocIsReplacedAndTheRestKept(@TempDir Path dir) throws Exception {
        Path doc = dir.resolve("PERFORMANCE.md");
        Files.writeString(doc, "# Perf\nbefore\n" + Compare.BEGIN + "\nold table\n" + Compare.END + "\nafter\n");
        Compare.replaceMarked(doc, "new table\n");
        assertThat(Files.readString(doc)).isEqualTo("# Perf\nbefore\n" + Compare.BEGIN + "\nnew table\n" + Compare.END + "\nafter\n");
        Compare.replaceMarked(doc, "newer table\n");
        assertThat(Files.readString(doc)).contains("newer table").doesNotContain("new table\n" + Compare.END);
    }

    @Test
    void aDocWithoutMarkersIsAClearError(@TempDir Path dir) throws Exception {
        Path doc = dir.resolve("x.md");
        Files.writeString(doc, "nothing here");
        assertThatThrownBy(() -> Compare.replaceMarked(doc, "t")).hasMessageContaining("markers");
    }
}
