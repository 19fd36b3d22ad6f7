package io.slime4j.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.TransferFuture;
import io.slime4j.endpoint.TransferStatus;
import io.slime4j.engine.directory.FileDirectory;
import io.slime4j.shm.SharedMemory;
import io.slime4j.shm.TransportChoice;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two engines in two JVMs of this host — A's "src" in {@link SharedMemory}, every other region
 * ordinary (private) memory, reached over shm with process_vm_readv/writev: by default they
 * connect through the shm device (its byte counters carry the transfer, the network rails' do not),
 * with {@code slime4j.transport=network} on either side through UDP — both sides agreeing, whichever
 * dials — and every transfer is byte-exact.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EngineTransportCrossProcessTest {
    private static final int SIZE = TransportPeer.SIZE;
    private static final Pattern BYTES = Pattern.compile("shm=(\\d+) net=(\\d+)");
    @TempDir
    Path folder;

    /** The child JVM running {@link TransportPeer}. */
    private static final class Peer implements AutoCloseable {
        final Process process;
        final PrintWriter out;
        final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
        final String ready;

        Peer(Path folder, String name, int seed, String transport) throws Exception {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
            if (transport != null) {
                cmd.add("-Dslime4j.transport=" + transport);
            }
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), TransportPeer.class.getName(),
                    folder.toString(), name, Integer.toString(seed)));
            process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(
                    Path.of(System.getProperty("java.io.tmpdir"), "slime4j-transport-peer.log").toFile())).start();
            out = new PrintWriter(process.getOutputStream(), true);
            ChildAnswers.pump(process, answers);
            ready = expect("@READY", 60);
        }

        String ask(String command, String prefix) throws InterruptedException {
            out.println(command);
            return expect(prefix, 90);
        }

        String expect(String prefix, int seconds) throws InterruptedException {
            String l = answers.poll(seconds, TimeUnit.SECONDS);
            assertThat(l).as("peer answers " + prefix).isNotNull().startsWith(prefix);
            return l;
        }

        @Override
        public void close() throws Exception {
            if (process.isAlive()) {
                out.println("EXIT");
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        }
    }

    private static long[] bytes(String answer) {
        Matcher m = BYTES.matcher(answer);
        assertThat(m.find()).as(answer).isTrue();
        return new long[]{Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    private static long[] bytes(TransferEngine e) {
        return bytes(TransportPeer.bytes(e));
    }

    private static void ok(TransferEngine e, String peer, List<Assignment> batch, boolean write) throws Exception {
        var f = write ? e.write(peer, batch) : e.read(peer, batch);
        assertThat(f.await(Duration.ofSeconds(60))).as(f.failureMessage()).isEqualTo(TransferStatus.SUCCESS);
    }

    /** A writes its src into B's "in" and reads B's src into its "in"; both checked byte by byte. */
    private static void transferBothWays(TransferEngine a, Peer b, MemorySegment in) throws Exception {
        ok(a, "B", List.of(new Assignment("src", 0, "in", 0, SIZE)), true);
        assertThat(b.ask("CHECK 1", "@CHECK")).isEqualTo("@CHECK -1");
        ok(a, "B", List.of(new Assignment("in", 0, "src", 0, SIZE - 3), new Assignment("in", SIZE - 3, "src",
                SIZE - 3, 3)), false);
        assertThat(TransportPeer.firstMismatch(in, 2)).isEqualTo(-1);
    }

    private TransferEngine engine(TransportChoice transport, Arena arena, MemorySegment[] in) {
        return engine(transport, arena, in, Duration.ofSeconds(20));
    }

    private TransferEngine engine(TransportChoice transport, Arena arena, MemorySegment[] in, Duration connectTimeout) {
        TransferEngine a = TransferEngine.builder("A", new FileDirectory(folder)).transport(transport)
                .connectTimeout(connectTimeout).start();
        MemorySegment src = SharedMemory.allocate(SIZE, arena); // over shm: the peer maps it (one memcpy)
        TransportPeer.fill(src, 1);
        in[0] = arena.allocate(SIZE);
        a.register("src", src);
        a.register("in", in[0]);
        return a;
    }

    @Test
    void twoEnginesOnOneHostTransferThroughSharedMemoryByDefault() throws Exception {
        MemorySegment[] in = new MemorySegment[1];
        try (Arena arena = Arena.ofShared();
             TransferEngine a = engine(TransportChoice.AUTO, arena, in);
             Peer b = new Peer(folder, "B", 2, null)) {
            assertThat(b.ready).contains("AUTO").contains("[shm, network]");
            transferBothWays(a, b, in[0]);

            assertThat(a.transport("B")).contains(PeerTransport.SHM);
            long[] mine = bytes(a);
            assertThat(mine[0]).as("bytes through A's shm device").isGreaterThanOrEqualTo(2L * SIZE);
            assertThat(mine[1]).as("bytes through A's network rails").isLessThan(SIZE / 16);
            String theirs = b.ask("TRANSPORT A", "@TRANSPORT");
            assertThat(theirs).startsWith("@TRANSPORT shm ");
            assertThat(bytes(theirs)[0]).as("bytes through B's shm device").isGreaterThanOrEqualTo(2L * SIZE);
            assertThat(bytes(theirs)[1]).as("bytes through B's network rails").isLessThan(SIZE / 16);
        }
    }

    @Test
    void aPeerKilledMidOperationOverShmEndsTheOutstandingOpAndTheNextOneInBoundedTime() throws Exception {
        MemorySegment[] in = new MemorySegment[1];
        try (Arena arena = Arena.ofShared();
             TransferEngine a = engine(TransportChoice.AUTO, arena, in, Duration.ofSeconds(5));
             Peer b = new Peer(folder, "B", 2, null)) {
            ok(a, "B", List.of(new Assignment("src", 0, "in", 0, 4096)), true);
            assertThat(a.transport("B")).contains(PeerTransport.SHM);
            TransferFuture hanging = a.recv("B", "in", 0, 64); // B never sends
            b.process.destroyForcibly(); // SIGKILL
            long t0 = System.nanoTime();
            TransferStatus s = hanging.await(Duration.ofSeconds(20));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(s).as(hanging.failureMessage()).isNotEqualTo(TransferStatus.SUCCESS);
            assertThat(ms).as("ms until the outstanding op ended").isLessThan(10_000);
            long t1 = System.nanoTime();
            String outcome;
            try {
                TransferFuture next = a.write("B", List.of(new Assignment("src", 0, "in", 0, 4096)));
                long t2 = System.nanoTime();
                TransferStatus n = next.await(Duration.ofSeconds(60));
                outcome = "posted after " + (t2 - t1) / 1_000_000 + " ms, " + n + ": " + next.failureMessage();
                assertThat(n).as(outcome).isNotEqualTo(TransferStatus.SUCCESS);
            } catch (PeerUnavailableException expected) {
                outcome = expected.toString();
                assertThat(expected).hasMessageContaining("B");
            }
            // B's record outlives it (no unpublish on SIGKILL): dialling its dead listener is refused until the
            // connect timeout (5 s here), as over the network
            assertThat((System.nanoTime() - t1) / 1_000_000).as("ms until the next op failed: " + outcome)
                    .isLessThan(16_000);
        }
    }

    @Test
    void aPeerForcedToTheNetworkIsReachedOverUdp() throws Exception {
        MemorySegment[] in = new MemorySegment[1];
        try (Arena arena = Arena.ofShared();
             TransferEngine a = engine(TransportChoice.AUTO, arena, in);
             Peer b = new Peer(folder, "B", 2, "network")) {
            assertThat(b.ready).contains("NETWORK").contains("[network]");
            transferBothWays(a, b, in[0]);

            assertThat(a.transport("B")).contains(PeerTransport.NETWORK);
            long[] mine = bytes(a);
            assertThat(mine[0]).as("bytes through A's shm device").isZero();
            assertThat(mine[1]).as("bytes through A's network rails").isGreaterThanOrEqualTo(2L * SIZE);
            String theirs = b.ask("TRANSPORT A", "@TRANSPORT");
            assertThat(theirs).startsWith("@TRANSPORT network ");
            assertThat(bytes(theirs)[1]).isGreaterThanOrEqualTo(2L * SIZE);
        }
    }

    @Test
    void aSameHostPeerDiallingAnEngineForcedToTheNetworkAgreesOnTheNetwork() throws Exception {
        MemorySegment[] in = new MemorySegment[1];
        try (Arena arena = Arena.ofShared();
             TransferEngine a = engine(TransportChoice.NETWORK, arena, in);
             Peer b = new Peer(folder, "B", 2, null)) { // auto: it would take shm, A's record says network only
            assertThat(a.record().transports()).containsExactly("network");
            assertThat(b.ask("WRITE A", "@WRITE")).isEqualTo("@WRITE SUCCESS"); // B dials
            assertThat(TransportPeer.firstMismatch(in[0], 2)).isEqualTo(-1);

            String theirs = b.ask("TRANSPORT A", "@TRANSPORT");
            assertThat(theirs).startsWith("@TRANSPORT network ");
            assertThat(bytes(theirs)[0]).as("bytes through B's shm device").isZero();
            assertThat(bytes(theirs)[1]).isGreaterThanOrEqualTo(SIZE);
            assertThat(a.transport("B")).contains(PeerTransport.NETWORK);
            assertThat(a.deviceCounters()).doesNotContainKey("A-shm"); // forced network opens no shm device
        }
    }
}
