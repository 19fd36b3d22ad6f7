package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.WcStatus;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15, item 4, between two processes over UDP (the peer a child JVM, {@link EndpointPeerMain}):
 * a write with a key the peer never issued and a read past the end of the peer's region fail alone
 * with REM_ACCESS_ERR while good writes and reads on the same lane and the other complete
 * byte-exact; the lane is re-established on both sides and carries later ops of both; and a fault
 * around which the peer is killed (SIGKILL) still ends in every op FAILED within the detection
 * bound plus one second.
 */
class OneBadRequestCrossProcessTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final long CHUNK = 256 << 10;

    /** The peer's info plus "ghost" (its "dst" under a key never issued) and "wide" ("src" with twice its length). */
    private static EndpointInfo withBadRegions(EndpointInfo peer) {
        Map<String, RegionInfo> regions = new LinkedHashMap<>(peer.regions());
        RegionInfo dst = peer.regions().get("dst");
        RegionInfo src = peer.regions().get("src");
        regions.put("ghost", new RegionInfo(dst.address(), dst.length(), dst.remoteKey() ^ 0x5A5A5A5AL, dst.accessFlags(),
                dst.railKeys()));
        regions.put("wide", new RegionInfo(src.address(), 2 * src.length(), src.remoteKey(), src.accessFlags(),
                src.railKeys()));
        return new EndpointInfo(peer.name(), peer.address(), peer.messageSlots(), peer.immWindow(), peer.ioQps(),
                peer.metaQp(), peer.dataQp(), regions, peer.rails(), peer.eagerThreshold());
    }

    @Test
    @Timeout(180)
    void badRequestsFailAloneAndTheLaneComesBackBetweenTwoProcesses() throws Exception {
        AtomicInteger lane = new AtomicInteger();
        QpSelector chosen = (type, id, qps) -> type.isMessagePath() ? 0 : lane.get();
        EndpointConfig cfg = EndpointConfig.builder().name("faulty").qps(2).selector((q, c) -> chosen).build();
        try (UdpWire wire = new UdpWire();
             SoftDevice device = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("faulty").build());
             Arena arena = Arena.ofShared();
             RdmaEndpoint ep = RdmaEndpoint.open(device, cfg);
             PeerChild peer = new PeerChild("2")) {
            MemorySegment buf = arena.allocate(32 * CHUNK, 4096);
            MemorySegment tmp = arena.allocate(CHUNK, 4096);
            ep.register("buf", buf);
            ep.register("tmp", tmp);
            peer.connect(ep);
            ep.updatePeer(withBadRegions(peer.info));
            List<TransferFuture> good = new ArrayList<>();
            List<long[]> checks = new ArrayList<>(); // {0 write / 1 read, offset, seed}
            for (int i = 0; i < 16; i++) {
                lane.set(i % 2);
                long off = i * CHUNK;
                if (i % 4 == 3) {
                    good.add(ep.read(Assignment.local("buf", off).remote("src", 0).length(CHUNK))); // the pattern starts at src 0
                    checks.add(new long[] {1, off, 2});
                } else {
                    EndpointPeerMain.fill(buf, off, CHUNK, 50 + i);
                    good.add(ep.write(Assignment.local("buf", off).remote("dst", off).length(CHUNK)));
                    checks.add(new long[] {0, off, 50 + i});
                }
                if (i == 8) {
                    lane.set(1);
                    TransferFuture badKey = ep.write(Assignment.local("buf", 0).remote("ghost", 0).length(4096));
                    TransferFuture pastEnd = ep.read(Assignment.local("tmp", 0).remote("wide", EndpointPeerMain.REGION)
                            .length(4096));
                    assertThat(badKey.await(WAIT)).isEqualTo(TransferStatus.FAILED);
                    assertThat(badKey.wcStatus()).isEqualTo(WcStatus.REM_ACCESS_ERR);
                    assertThat(pastEnd.await(WAIT)).isEqualTo(TransferStatus.FAILED);
                    assertThat(pastEnd.wcStatus()).as(pastEnd.failureMessage())
                            .isIn(WcStatus.REM_ACCESS_ERR, WcStatus.REM_INV_REQ_ERR, WcStatus.WR_FLUSH_ERR);
                }
            }
            for (int k = 0; k < good.size(); k++) {
                success(good.get(k), WAIT);
                long[] c = checks.get(k);
                if (c[0] == 0) {
                    assertThat(peer.call("CHECK dst " + c[1] + " " + CHUNK + " " + c[2], "")).as("write %d", k).isEqualTo("OK");
                } else {
                    assertThat(EndpointPeerMain.check(buf, c[1], CHUNK, c[2])).as("read %d", k).isEqualTo(-1);
                }
            }
            long until = System.nanoTime() + WAIT.toNanos();
            while (ep.router().isDead(1) && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertThat(ep.router().isDead(1)).as("lane 1 back in rotation").isFalse();
            assertThat(ep.laneRecovery().completed.sum()).isGreaterThanOrEqualTo(1);
            lane.set(1);
            EndpointPeerMain.fill(buf, 0, CHUNK, 99);
            success(ep.write(Assignment.local("buf", 0).remote("dst", 0).length(CHUNK)), WAIT);
            assertThat(peer.call("CHECK dst 0 " + CHUNK + " 99", "")).isEqualTo("OK");
            peer.call("WRITE src tmp 0 " + CHUNK, "POSTED"); // the peer's own one-sided traffic, its lanes re-established too
            String wrote;
            try {
                wrote = peer.expect("WROTE ");
            } catch (AssertionError e) { // both sides' lanes, for the diagnosis
                throw new AssertionError(e.getMessage() + "; here: " + LaneDump.of(ep) + "; the peer: "
                        + peer.call("STATE", "STATE "), e);
            }
            assertThat(wrote).isEqualTo("SUCCESS SUCCESS");
            assertThat(EndpointPeerMain.check(tmp, 0, CHUNK, 2)).isEqualTo(-1);
            assertThat(ep.stats().protocolErrors.sum()).isZero();
        }
    }

    @Test
    @Timeout(120)
    void aFaultAroundWhichThePeerIsKilledStillEndsInEveryOpFailedWithinTheBound() throws Exception {
        QpConfig quick = QpConfig.builder().ackTimeout(Duration.ofMillis(50)).retryCount(3).build();
        QpSelector lane1 = (type, id, qps) -> type.isMessagePath() ? 0 : 1;
        EndpointConfig cfg = EndpointConfig.builder().name("faulty").qps(2).selector((q, c) -> lane1).qpTemplate(quick)
                .keepalive(Duration.ofMillis(500)).build();
        try (UdpWire wire = new UdpWire();
             SoftDevice device = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("faulty").build());
             Arena arena = Arena.ofShared();
             RdmaEndpoint ep = RdmaEndpoint.open(device, cfg);
             PeerChild peer = new PeerChild("2")) {
            MemorySegment buf = arena.allocate(CHUNK, 4096);
            ep.register("buf", buf);
            peer.connect(ep);
            ep.updatePeer(withBadRegions(peer.info));
            TransferFuture recv = ep.recv("buf", 0, 4096);
            TransferFuture imm = ep.immRecv();
            TransferFuture bad = ep.write(Assignment.local("buf", 0).remote("ghost", 0).length(4096));
            long killed = System.nanoTime();
            peer.kill(); // the fault's round may be under way: the peer never answers it
            for (TransferFuture f : List.of(bad, recv, imm)) {
                assertThat(f.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - killed);
            System.out.printf("fault then SIGKILL: last op FAILED %d ms after the kill (bound %d ms + 1 s); bad write %s: %s%n",
                    took.toMillis(), cfg.detectionBound().toMillis(), bad.wcStatus(), recv.failureMessage());
            assertThat(took).isLessThanOrEqualTo(cfg.detectionBound().plusSeconds(1));
            assertThat(bad.wcStatus()).isIn(WcStatus.REM_ACCESS_ERR, WcStatus.RETRY_EXC_ERR, WcStatus.WR_FLUSH_ERR);
        }
    }
}
