package io.slime4j.endpoint;

import static io.slime4j.endpoint.EndpointPeerMain.REGION;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.Counter;
import io.slime4j.wire.udp.UdpWire;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every endpoint operation between two processes over the UDP wire: write, read, send/recv and
 * write-with-immediate from 1 byte to 64 MiB, byte-exact, with 1 and 4 queue pairs. The peer is an
 * {@link EndpointPeerMain} in a child JVM.
 */
class CrossProcessEndpointTest {
    private static final long[] SIZES = {1, 4095, 4096, 65_537, 1 << 20, 16 << 20, 64 << 20};

    @ParameterizedTest(name = "{0} queue pairs")
    @ValueSource(ints = {1, 4})
    @Timeout(180)
    void everyOperationIsByteExactBetweenTwoProcessesOverUdp(int qps) throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-cp", System.getProperty("java.class.path"), EndpointPeerMain.class.getName(),
                Integer.toString(qps)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BlockingQueue<String> lines = new ArrayBlockingQueue<>(1024);
        Thread.ofPlatform().daemon().start(() -> pump(child, lines));
        PrintStream toChild = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);
        try (UdpWire wire = new UdpWire();
             SoftDevice device = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("driver").build());
             Arena arena = Arena.ofShared();
             RdmaEndpoint ep = RdmaEndpoint.open(device, EndpointConfig.builder().qps(qps).build())) {
            MemorySegment src = arena.allocate(REGION, 4096);
            EndpointPeerMain.fill(src, 0, REGION, 1);
            MemorySegment back = arena.allocate(REGION, 4096);
            ep.register("src", src);
            ep.register("back", back);
            EndpointInfo peer = EndpointInfo.fromJson(expect(lines, "INFO "));
            ep.connect(peer);
            toChild.println("PEER " + ep.info().toJson());
            expect(lines, "OK");

            for (long size : SIZES) {
                assertThat(ep.write(List.of(new Assignment("src", 0, "dst", 0, size))).join().status())
                        .as("write of %d", size).isEqualTo(TransferStatus.SUCCESS);
                toChild.println("CHECK dst 0 " + size + " 1");
                assertThat(expect(lines, "")).as("peer's check of a write of %d", size).isEqualTo("OK");

                assertThat(ep.read(List.of(new Assignment("back", 0, "src", 0, size))).join().status())
                        .as("read of %d", size).isEqualTo(TransferStatus.SUCCESS);
                assertThat(EndpointPeerMain.check(back, 0, size, 2)).as("first wrong byte of a read of %d", size)
                        .isEqualTo(-1);

                toChild.println("RECV 0 " + size);
                expect(lines, "POSTED");
                TransferFuture send = ep.send("src", 0, size).join();
                assertThat(send.status()).as("send of %d", size).isEqualTo(TransferStatus.SUCCESS);
                assertThat(expect(lines, "RECVD ")).as("peer's receive of %d", size).isEqualTo("SUCCESS " + size);
                toChild.println("CHECK inbox 0 " + size + " 1");
                assertThat(expect(lines, "")).as("peer's check of a send of %d", size).isEqualTo("OK");

                toChild.println("IMM");
                expect(lines, "POSTED");
                assertThat(ep.writeWithImm(List.of(new Assignment("src", 0, "dst", 0, size)), (int) size).join()
                        .status()).as("write with immediate of %d", size).isEqualTo(TransferStatus.SUCCESS);
                assertThat(expect(lines, "IMMED ")).as("peer's immediate after %d", size)
                        .isEqualTo("SUCCESS " + (int) size);
                toChild.println("CHECK dst 0 " + size + " 1");
                assertThat(expect(lines, "")).as("peer's check of a write with immediate of %d", size).isEqualTo("OK");
            }
            assertThat(device.counters().get(Counter.AGENT_ERRORS)).isZero();
            toChild.println("QUIT");
            assertThat(child.waitFor(20, TimeUnit.SECONDS)).as("peer exits after QUIT").isTrue();
        } finally {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * The next line starting with {@code prefix} (the rest of it); skips others; 60 s bound. The
     * lines skipped are named in the failure, so a reply that came before the one awaited shows.
     */
    static String expect(BlockingQueue<String> lines, String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        java.util.List<String> skipped = new java.util.ArrayList<>();
        while (true) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("no line starting with '" + prefix + "' from the peer within 60 s; skipped "
                        + skipped);
            }
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length());
            }
            skipped.add(line.length() > 200 ? line.substring(0, 200) + "..." : line);
        }
    }

    /** Copies the child's output lines into {@code lines} until it ends (a reader thread's body). */
    static void pump(Process child, BlockingQueue<String> lines) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.put(line);
            }
        } catch (IOException | InterruptedException e) {
            // the child ended
        }
    }
}
