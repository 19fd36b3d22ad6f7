package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.udp.UdpWire;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Two rails between two processes over UDP (two sockets and two progress agents per side), several
 * lanes and a selector: write, read, send/recv and write-with-imm byte-exact. The peer is an
 * {@link EndpointPeerMain} in a child JVM.
 */
class CrossProcessRailsTest {
    private static final long[] SIZES = {1, 65_537, (16 << 20) + 3};

    @ParameterizedTest(name = "{0} QPs on {1} rails, {2}")
    @CsvSource({"4, 2, striped", "4, 2, round-robin", "8, 2, round-robin-all"})
    @Timeout(180)
    void everyOperationIsByteExactOverTwoRailsBetweenTwoProcesses(int qps, int rails, String selector) throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-cp", System.getProperty("java.class.path"), EndpointPeerMain.class.getName(),
                Integer.toString(qps), Integer.toString(rails), selector)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        PeerReplies lines = new PeerReplies();
        Thread.ofPlatform().daemon().start(() -> lines.readFrom(child));
        PrintStream toChild = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);
        List<SoftDevice> devices = new ArrayList<>();
        try (UdpWire wire = new UdpWire(); Arena arena = Arena.ofShared()) {
            for (int r = 0; r < rails; r++) {
                devices.add(SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("driver-" + r).build()));
            }
            try (RdmaEndpoint ep = RdmaEndpoint.open(List.<VerbsDevice>copyOf(devices),
                    EndpointConfig.builder().qps(qps).selector(selector).build())) {
                long region = EndpointPeerMain.REGION;
                MemorySegment src = arena.allocate(region, 4096);
                EndpointPeerMain.fill(src, 0, region, 1);
                MemorySegment back = arena.allocate(region, 4096);
                ep.register("src", src);
                ep.register("back", back);
                EndpointInfo peer = EndpointInfo.fromJson(CrossProcessEndpointTest.expect(lines, "INFO "));
                assertThat(peer.rails()).hasSize(rails);
                ep.connect(peer);
                toChild.println("PEER " + ep.info().toJson());
                CrossProcessEndpointTest.expect(lines, "OK");
                for (long size : SIZES) {
                    assertThat(ep.write(List.of(new Assignment("src", 0, "dst", 0, size))).join().status())
                            .as("write of %d", size).isEqualTo(TransferStatus.SUCCESS);
                    toChild.println("CHECK dst 0 " + size + " 1");
                    assertThat(CrossProcessEndpointTest.expect(lines, "")).as("peer's check of a write of %d", size).isEqualTo("OK");

                    assertThat(ep.read(List.of(new Assignment("back", 0, "src", 0, size))).join().status())
                            .as("read of %d", size).isEqualTo(TransferStatus.SUCCESS);
                    assertThat(EndpointPeerMain.check(back, 0, size, 2)).as("read of %d", size).isEqualTo(-1);

                    toChild.println("RECV 0 " + size);
                    CrossProcessEndpointTest.expect(lines, "POSTED");
                    assertThat(ep.send("src", 0, size).join().status()).isEqualTo(TransferStatus.SUCCESS);
                    assertThat(CrossProcessEndpointTest.expect(lines, "RECVD ")).isEqualTo("SUCCESS " + size);
                    toChild.println("CHECK inbox 0 " + size + " 1");
                    assertThat(CrossProcessEndpointTest.expect(lines, "")).as("peer's check of a send of %d", size).isEqualTo("OK");

                    toChild.println("IMM");
                    CrossProcessEndpointTest.expect(lines, "POSTED");
                    assertThat(ep.writeWithImm(List.of(new Assignment("src", 0, "dst", 0, size)), (int) size).join()
                            .status()).isEqualTo(TransferStatus.SUCCESS);
                    assertThat(CrossProcessEndpointTest.expect(lines, "IMMED ")).isEqualTo("SUCCESS " + (int) size);
                    toChild.println("CHECK dst 0 " + size + " 1");
                    assertThat(CrossProcessEndpointTest.expect(lines, "")).as("peer's check of a write-with-imm of %d", size).isEqualTo("OK");
                }
                long[] posted = RailPair.postedPerLane(ep);
                for (int lane = 1; lane < qps; lane++) {
                    assertThat(posted[lane]).as("requests on lane %d", lane).isPositive();
                }
                toChild.println("QUIT");
                assertThat(child.waitFor(20, TimeUnit.SECONDS)).as("peer exits after QUIT").isTrue();
            }
        } finally {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            devices.forEach(SoftDevice::close);
        }
    }
}
