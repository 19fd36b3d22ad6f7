package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.WcStatus;
import io.slime4j.wire.inproc.FaultConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15, item 4, in one process over the in-process wire: a request the peer refuses (a key it
 * never issued, an offset past its region's end) fails alone with the status verbs reports, the
 * good ops around it on the same lane and on others complete byte-exact, the lane is re-established
 * (fresh queue pairs on both sides) and carries later ops; twenty faults in a row leave no queue
 * pair behind; and a fault whose recovery the peer cannot answer still ends in the endpoint failing
 * within its detection bound.
 */
@Timeout(120)
class OneBadRequestTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final long CHUNK = 64 << 10;

    /** The peer's info plus "ghost" (the memory of "kv" under a key never issued) and "wide" (kv's key, twice its length). */
    static EndpointInfo withBadRegions(EndpointInfo peer) {
        Map<String, RegionInfo> regions = new LinkedHashMap<>(peer.regions());
        RegionInfo kv = peer.regions().get("kv");
        regions.put("ghost", new RegionInfo(kv.address(), kv.length(), kv.remoteKey() ^ 0x5A5A5A5AL, kv.accessFlags(),
                kv.railKeys() == null ? null : kv.railKeys().stream().map(k -> k ^ 0x5A5A5A5AL).toList()));
        regions.put("wide", new RegionInfo(kv.address(), 2 * kv.length(), kv.remoteKey(), kv.accessFlags(),
                kv.railKeys()));
        return new EndpointInfo(peer.name(), peer.address(), peer.messageSlots(), peer.immWindow(), peer.ioQps(),
                peer.metaQp(), peer.dataQp(), regions, peer.rails(), peer.eagerThreshold());
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long until = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < until).as(what).isTrue();
            Thread.sleep(1);
        }
    }

    @Test
    void aBadKeyWriteAndAnOutOfBoundsReadFailAloneWhileTheGoodOpsAroundThemCompleteByteExact() throws Exception {
        AtomicInteger lane = new AtomicInteger();
        QpSelector chosen = (type, id, qps) -> type.isMessagePath() ? 0 : lane.get();
        EndpointConfig c = EndpointConfig.builder().qps(2).selector((q, cfg) -> chosen).build();
        try (RailPair p = RailPair.inproc(1, c, 32 * CHUNK)) {
            p.a.updatePeer(withBadRegions(p.b.info()));
            List<TransferFuture> good = new ArrayList<>();
            List<long[]> checks = new ArrayList<>(); // {0 write / 1 read, offset, seed}
            for (int i = 0; i < 12; i++) {
                lane.set(i % 2);
                long off = i * CHUNK;
                if (i % 3 == 2) { // a read of the peer's chunk into our upper half
                    Patterns.fill(p.kvB, off, CHUNK, 100 + i);
                    good.add(p.a.read(Assignment.local("kv", 16 * CHUNK + off).remote("kv", off).length(CHUNK)));
                    checks.add(new long[] {1, off, 100 + i});
                } else {
                    Patterns.fill(p.kvA, off, CHUNK, 100 + i);
                    good.add(p.a.write(Assignment.local("kv", off).remote("kv", off).length(CHUNK)));
                    checks.add(new long[] {0, off, 100 + i});
                }
                if (i == 4) {
                    lane.set(1);
                    good.add(null);
                    checks.add(null);
                }
            }
            lane.set(1);
            TransferFuture badKey = p.a.write(Assignment.local("kv", 0).remote("ghost", 0).length(4096));
            TransferFuture pastEnd = p.a.read(Assignment.local("kv", 0).remote("wide", 32 * CHUNK).length(4096));
            for (int i = 12; i < 16; i++) { // behind the bad ones, on both lanes
                lane.set(i % 2);
                long off = i * CHUNK;
                Patterns.fill(p.kvA, off, CHUNK, 100 + i);
                good.add(p.a.write(Assignment.local("kv", off).remote("kv", off).length(CHUNK)));
                checks.add(new long[] {0, off, 100 + i});
            }
            assertThat(badKey.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(badKey.wcStatus()).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(pastEnd.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(pastEnd.wcStatus()).isIn(WcStatus.REM_ACCESS_ERR, WcStatus.REM_INV_REQ_ERR, WcStatus.WR_FLUSH_ERR);
            for (int k = 0; k < good.size(); k++) {
                if (good.get(k) == null) {
                    continue;
                }
                success(good.get(k), WAIT);
                long[] ch = checks.get(k);
                long at = ch[0] == 0 ? Patterns.mismatch(p.kvB, ch[1], CHUNK, ch[2])
                        : Patterns.mismatch(p.kvA, 16 * CHUNK + ch[1], CHUNK, ch[2]);
                assertThat(at).as("good op %d: first wrong byte", k).isEqualTo(-1);
            }
            await(() -> !p.a.router().isDead(1) && !p.b.router().isDead(1), "lane 1 back in rotation on both sides");
            assertThat(p.a.laneRecovery().completed.sum()).isGreaterThanOrEqualTo(1);
            assertThat(p.b.laneRecovery().completed.sum()).isGreaterThanOrEqualTo(1);
            lane.set(1);
            Patterns.fill(p.kvA, 0, CHUNK, 7);
            success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(CHUNK)), WAIT);
            assertThat(Patterns.mismatch(p.kvB, 0, CHUNK, 7)).isEqualTo(-1);
            Patterns.fill(p.kvA, CHUNK, CHUNK, 8); // the peer's ops on the re-established lane too
            success(p.b.read(Assignment.local("kv", 2 * CHUNK).remote("kv", CHUNK).length(CHUNK)), WAIT);
            assertThat(Patterns.mismatch(p.kvB, 2 * CHUNK, CHUNK, 8)).isEqualTo(-1);
            assertThat(p.a.stats().protocolErrors.sum() + p.b.stats().protocolErrors.sum()).isZero();
            p.assertClean();
        }
    }

    @Test
    void withOneLaneTheGoodOpsBehindABadOneWaitForTheLaneAndComplete() throws Exception {
        EndpointConfig c = EndpointConfig.builder().qps(1).build();
        try (RailPair p = RailPair.inproc(1, c, 32 * CHUNK)) {
            p.a.updatePeer(withBadRegions(p.b.info()));
            for (int round = 0; round < 3; round++) {
                List<TransferFuture> good = new ArrayList<>();
                TransferFuture bad = null;
                for (int i = 0; i < 16; i++) {
                    if (i == 6) {
                        bad = p.a.write(Assignment.local("kv", 0).remote("ghost", 0).length(4096));
                    }
                    long off = i * CHUNK;
                    Patterns.fill(p.kvA, off, CHUNK, round * 100 + i);
                    good.add(p.a.write(Assignment.local("kv", off).remote("kv", off).length(CHUNK)));
                }
                assertThat(bad.await(WAIT)).isEqualTo(TransferStatus.FAILED);
                assertThat(bad.wcStatus()).isEqualTo(WcStatus.REM_ACCESS_ERR);
                for (int i = 0; i < good.size(); i++) {
                    success(good.get(i), WAIT);
                    assertThat(Patterns.mismatch(p.kvB, i * CHUNK, CHUNK, round * 100 + i)).as("write %d", i).isEqualTo(-1);
                }
            }
            p.assertClean();
        }
    }

    @Test
    void twentyFaultsInARowEachFailAloneAndLeaveNoQueuePairBehind() throws Exception {
        EndpointConfig c = EndpointConfig.builder().qps(1).build();
        try (RailPair p = RailPair.inproc(1, c, 4 * CHUNK)) {
            p.a.updatePeer(withBadRegions(p.b.info()));
            SoftDevice da = p.devicesA.get(0);
            SoftDevice db = p.devicesB.get(0);
            int qpsA = da.openQueuePairs();
            int qpsB = db.openQueuePairs();
            for (int i = 0; i < 20; i++) {
                TransferFuture bad = i % 2 == 0 ? p.a.write(Assignment.local("kv", 0).remote("ghost", 0).length(4096))
                        : p.a.read(Assignment.local("kv", 0).remote("wide", 4 * CHUNK).length(4096));
                assertThat(bad.await(WAIT)).as("fault %d", i).isEqualTo(TransferStatus.FAILED);
                assertThat(bad.wcStatus()).as("fault %d", i).isIn(WcStatus.REM_ACCESS_ERR, WcStatus.REM_INV_REQ_ERR);
                int round = i + 1;
                await(() -> p.a.laneRecovery().completed.sum() == round && !p.a.router().isDead(0),
                        "lane 0 re-established after fault " + i);
                Patterns.fill(p.kvA, 0, CHUNK, i);
                success(p.a.write(Assignment.local("kv", 0).remote("kv", CHUNK).length(CHUNK)), WAIT);
                assertThat(Patterns.mismatch(p.kvB, CHUNK, CHUNK, i)).isEqualTo(-1);
            }
            await(() -> da.openQueuePairs() == qpsA && db.openQueuePairs() == qpsB,
                    "open queue pairs back to " + qpsA + " and " + qpsB);
            assertThat(p.a.laneRecovery().started.sum()).isEqualTo(20);
            assertThat(p.a.laneRecovery().abandoned.sum() + p.b.laneRecovery().abandoned.sum()).isZero();
            p.assertClean();
        }
    }

    @Test
    void aFaultWhoseRecoveryThePeerCannotAnswerStillFailsTheEndpointWithinItsDetectionBound() throws Exception {
        QpConfig quick = QpConfig.builder().ackTimeout(Duration.ofMillis(50)).retryCount(3).build();
        QpSelector lane1 = (type, id, qps) -> type.isMessagePath() ? 0 : 1; // lane 1 lives on rail 1
        EndpointConfig c = EndpointConfig.builder().qps(2).selector((q, cfg) -> lane1).qpTemplate(quick)
                .keepalive(Duration.ofMillis(500)).build();
        try (RailPair p = RailPair.inproc(2, c, 4 * CHUNK)) {
            p.a.updatePeer(withBadRegions(p.b.info()));
            TransferFuture recv = p.a.recv("kv", 0, 4096); // held by the endpoint until it fails
            long began = System.nanoTime();
            p.inprocWires.get(0).setFaults(FaultConfig.builder().dropRate(1.0).build()); // rail 0: meta and lane 0 go dark
            TransferFuture bad = p.a.write(Assignment.local("kv", 0).remote("ghost", 0).length(4096)); // NAKed on rail 1
            assertThat(bad.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(bad.wcStatus()).isEqualTo(WcStatus.REM_ACCESS_ERR);
            System.out.printf("bad write failed after %d ms%n", (System.nanoTime() - began) / 1_000_000);
            assertThat(recv.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            System.out.printf("recv failed after %d ms: %s%n", (System.nanoTime() - began) / 1_000_000, recv.failureMessage());
            Duration took = Duration.ofNanos(System.nanoTime() - began);
            assertThat(took).as("from the peer going dark to the last op FAILED")
                    .isLessThanOrEqualTo(c.detectionBound().plusSeconds(1));
            assertThat(recv.failureMessage()).contains("failed");
            p.inprocWires.get(0).setFaults(FaultConfig.builder().build());
        }
    }

    @Test
    void everyRailsCompletionQueueHoldsASecondImmWindowPerLaneForALaneBeingReEstablished() throws Exception {
        int sq = 32;
        int window = 64;
        EndpointConfig c = EndpointConfig.builder().qps(4).immWindow(window).sendQueueDepth(sq).build();
        try (RailPair p = RailPair.inproc(2, c, 4 * CHUNK)) {
            for (RdmaEndpoint ep : List.of(p.a, p.b)) {
                for (int r = 0; r < 2; r++) { // lanes r and r + 2 on rail r: each may have its old and its fresh pair
                    assertThat((long) ep.transport().cqs[r].capacity()).as("rail %d", r)
                            .isGreaterThanOrEqualTo(2L * (sq + 2L * (window + Transport.RQ_SLACK)));
                }
            }
        }
    }

    @Test
    void writeWithImmCreditsOfImmediatesFlushedInARoundComeBack() throws Exception {
        int window = 8;
        EndpointConfig c = EndpointConfig.builder().qps(1).immWindow(window).slotTimeout(Duration.ofSeconds(5)).build();
        try (RailPair p = RailPair.inproc(1, c, 4 * CHUNK)) {
            p.a.updatePeer(withBadRegions(p.b.info()));
            int flushed = 0;
            for (int round = 0; round < 4; round++) { // 4 rounds x 4 immediates: twice the window
                TransferFuture bad = p.a.write(Assignment.local("kv", 0).remote("ghost", 0).length(4096));
                List<TransferFuture> imms = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    imms.add(p.a.writeWithImm(List.of(Assignment.local("kv", 0).remote("kv", 0).length(64)), i));
                }
                assertThat(bad.await(WAIT)).isEqualTo(TransferStatus.FAILED);
                for (TransferFuture f : imms) {
                    if (f.await(WAIT) != TransferStatus.SUCCESS) {
                        flushed++;
                    }
                }
                int r = round;
                await(() -> p.a.laneRecovery().completed.sum() > r, "round " + r + " completed");
            }
            int threshold = window / 4; // the peer returns credits a quarter window at a time: fewer may wait there
            await(() -> p.a.peerImmCredits() > window - threshold, "every credit back but the peer's last partial "
                    + "quarter (flushed immediates: refunded; delivered ones: returned)");
            TransferFuture after = p.a.writeWithImm(List.of(Assignment.local("kv", 0).remote("kv", 0).length(64)), 99);
            success(after, WAIT);
            System.out.printf("imm credits after 4 rounds: %d flushed immediates, %d credits%n", flushed,
                    p.a.peerImmCredits());
        }
    }
}
