package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.endpoint.Bootstrap;
import io.slime4j.endpoint.BootstrapChannel;
import io.slime4j.endpoint.BootstrapListener;
import io.slime4j.wire.inproc.InprocWire;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --verify} catches a wrong byte where it landed: the real client and server on the
 * in-process wire, with one byte of the server's region changed after the data arrived (write,
 * checked by the server) or after it was prepared (read, checked by the client).
 */
@Timeout(60)
class VerifyMismatchTest {

    @Test
    void aWrongByteOnTheServerFailsAWriteRowNamingWhere() throws Exception {
        PerfPlan.Row row = new PerfPlan.Row(PerfPlan.Op.WRITE, PerfPlan.Mode.BW, 4096, 40, 0, 4);
        assertThatThrownBy(() -> run(row, (phase, region) -> {
            if (phase.equals("landed")) {
                flip(region, 4096 + 5);
            }
        })).isInstanceOf(CliException.class).hasMessageMatching("verification failed: write 4 KiB: byte 5 of operation"
                + " slot 1 \\(offset 4101 of the server's region\\) is 0x[0-9a-f]{2}, expected 0x[0-9a-f]{2}");
    }

    @Test
    void aWrongByteAtTheSourceFailsAReadRowOnTheClient() throws Exception {
        PerfPlan.Row row = new PerfPlan.Row(PerfPlan.Op.READ, PerfPlan.Mode.BW, 1000, 10, 1, 2);
        assertThatThrownBy(() -> run(row, (phase, region) -> {
            if (phase.equals("prepared")) {
                flip(region, 1999);
            }
        })).isInstanceOf(CliException.class).hasMessageMatching("verification failed: read 1000 B: byte 999 of"
                + " operation slot 1 \\(offset 1999 of this side's region\\) is 0x[0-9a-f]{2}, expected 0x[0-9a-f]{2}");
    }

    @Test
    void untouchedDataPasses() throws Exception {
        PerfPlan.Row row = new PerfPlan.Row(PerfPlan.Op.WRITE, PerfPlan.Mode.BW, 4096, 40, 0, 4);
        assertThat(run(row, (phase, region) -> { })).contains("\"verified\":true");
    }

    private static void flip(MemorySegment region, long offset) {
        region.set(ValueLayout.JAVA_BYTE, offset, (byte) ~region.get(ValueLayout.JAVA_BYTE, offset));
    }

    private static String run(PerfPlan.Row row, BiConsumer<String, MemorySegment> tamper) throws Exception {
        Duration timeout = Duration.ofSeconds(20);
        PerfPlan plan = new PerfPlan(List.of(row), 1, null, 0, PerfCommand.LOOPBACK_MTU, "inproc", true, true, timeout);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InprocWire wire = new InprocWire();
             BootstrapListener listener = Bootstrap.listen("127.0.0.1", 0)) {
            AtomicReference<Throwable> serverFailure = new AtomicReference<>();
            Thread server = Thread.ofPlatform().start(() -> {
                try (BootstrapChannel c = listener.accept(timeout)) {
                    new PerfServer(c, () -> new PerfCommand.SharedWire(wire), timeout, tamper).run();
                } catch (Throwable t) {
                    serverFailure.set(t);
                }
            });
            try (BootstrapChannel c = Bootstrap.connect("127.0.0.1", listener.port(), timeout)) {
                new PerfClient(plan, PerfControl.of(c), new Report(new PrintStream(out, true, StandardCharsets.UTF_8), plan, "test"),
                        new Progress(System.err, false)).run(new PerfCommand.SharedWire(wire), c.localAddress());
            } finally {
                server.join(timeout);
            }
            assertThat(serverFailure.get()).isNull();
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
