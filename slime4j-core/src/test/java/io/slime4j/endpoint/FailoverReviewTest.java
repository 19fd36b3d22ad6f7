package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.WcStatus;
import io.slime4j.wire.inproc.FaultConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Failover cases found in review: re-issue on another lane is for requests whose lane failed
 * (retries exhausted, or flushed behind such a failure), not for a request that failed on its own
 * merits — that one would fail the same way on every lane and take each lane down in turn.
 */
@Timeout(120)
class FailoverReviewTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** The peer's info with one more region, "ghost": the memory of "kv" under a key the peer never issued. */
    private static EndpointInfo withGhostRegion(EndpointInfo peer) {
        Map<String, RegionInfo> regions = new LinkedHashMap<>(peer.regions());
        RegionInfo kv = peer.regions().get("kv");
        regions.put("ghost", new RegionInfo(kv.address(), kv.length(), kv.remoteKey() ^ 0x5A5A5A5AL, kv.accessFlags(),
                kv.railKeys()));
        return new EndpointInfo(peer.name(), peer.address(), peer.messageSlots(), peer.immWindow(), peer.ioQps(),
                peer.metaQp(), peer.dataQp(), regions, peer.rails(), peer.eagerThreshold());
    }

    @Test
    void aRequestTheRemoteRefusesFailsItsOpAloneAndItsLaneIsReEstablished() throws Exception {
        QpSelector lane1 = (type, id, qps) -> type.isMessagePath() ? 0 : 1; // one-sided traffic on lane 1
        EndpointConfig c = EndpointConfig.builder().qps(2).selector((q, cfg) -> lane1).build();
        try (RailPair p = RailPair.inproc(1, c, 1 << 20)) {
            p.a.updatePeer(withGhostRegion(p.b.info()));
            TransferFuture bad = p.a.write(Assignment.local("kv", 0).remote("ghost", 0).length(4096));
            assertThat(bad.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(bad.wcStatus()).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(p.a.stats().reissued.sum()).as("the refused request was not re-issued").isZero();
            Patterns.fill(p.kvA, 0, 4096, 3);
            success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(4096)), WAIT); // the endpoint goes on
            assertThat(Patterns.mismatch(p.kvB, 0, 4096, 3)).isEqualTo(-1);
            long until = System.nanoTime() + WAIT.toNanos();
            while (p.a.router().isRecovering(1) && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertThat(p.a.router().isDead(1)).as("lane 1, re-established").isFalse();
            Patterns.fill(p.kvA, 0, 4096, 4);
            success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(4096)), WAIT); // on lane 1 again
            assertThat(Patterns.mismatch(p.kvB, 0, 4096, 4)).isEqualTo(-1);
            p.assertClean();
        }
    }

    /**
     * A rail goes dark while several threads keep small pools, shallow send queues and selective
     * signaling busy with reads, writes and writes-with-imm: every op completes exactly once (reads
     * and writes succeed unless a re-issue found no credit, a write-with-imm may fail with its lane),
     * each success is byte-exact, every slot and credit comes back, and the endpoint goes on.
     */
    @Test
    void aRailDyingUnderSelectiveSignalingLosesNoCompletionAndNoSlot() throws Exception {
        // patient enough that the healthy rail never runs out of retries on a loaded machine
        QpConfig patient = QpConfig.builder().ackTimeout(Duration.ofMillis(200)).retryCount(3).build();
        EndpointConfig c = EndpointConfig.builder().qps(4).selector("round-robin-all").qpTemplate(patient)
                .sendQueueDepth(16).signalEvery(4).ioSlots(6).requestsPerSlot(3).maxRequestBytes(2048)
                .slotTimeout(Duration.ofSeconds(20)).build();
        long slice = 256 << 10;
        try (RailPair p = RailPair.inproc(2, c, 8 * slice)) {
            AtomicInteger started = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                List<Future<?>> runs = new ArrayList<>();
                for (int t = 0; t < 3; t++) {
                    int thread = t;
                    runs.add(pool.submit(() -> {
                        SplittableRandom rnd = new SplittableRandom(40 + thread);
                        long src = thread * 2 * slice;
                        long[][] last = new long[4][];
                        for (int i = 0; i < 60; i++) {
                            if (thread == 0 && i == 20) {
                                p.inprocWires.get(1).setFaults(FaultConfig.builder().dropRate(1.0).build());
                            }
                            List<TransferFuture> window = new ArrayList<>();
                            List<long[]> ranges = new ArrayList<>();
                            for (int k = 0; k < 4; k++) {
                                long len = 1 + rnd.nextLong(24 << 10);
                                long off = src + k * (slice / 4);
                                long seed = thread * 10_000L + i * 10 + k;
                                Patterns.fill(p.kvA, off, len, seed);
                                started.incrementAndGet();
                                int kind = rnd.nextInt(3);
                                window.add(kind == 0 ? p.a.write(Assignment.local("kv", off).remote("kv", off).length(len))
                                        : kind == 1 ? p.a.writeWithImm(List.of(Assignment.local("kv", off).remote("kv", off).length(len)), k)
                                        : p.a.read(Assignment.local("kv", off + slice).remote("kv", off).length(len)));
                                ranges.add(new long[] {kind, off, len, seed});
                            }
                            for (int k = 0; k < window.size(); k++) {
                                TransferFuture f = window.get(k);
                                TransferStatus st = f.await(Duration.ofSeconds(60));
                                long[] r = ranges.get(k);
                                if (st == TransferStatus.SUCCESS && r[0] != 2) {
                                    long at = Patterns.mismatch(p.kvB, r[1], r[2], r[3]);
                                    long prevAt = last[k] == null ? -2 : Patterns.mismatch(p.kvB, r[1], Math.min(r[2], last[k][2]), last[k][3]);
                                    assertThat(at).as("thread %d round %d op %d kind %d len %d: at %d; previous write (round %d, kind %d, len %d) there: %d; reissued %d; dead %s %s",
                                            thread, i, k, r[0], r[2], at, last[k] == null ? -1 : last[k][4], last[k] == null ? -1 : last[k][0], last[k] == null ? -1 : last[k][2], prevAt,
                                            p.a.stats().reissued.sum(), p.a.router().isDead(1), p.a.router().isDead(3)).isEqualTo(-1);
                                    last[k] = new long[] {r[0], r[1], r[2], r[3], i};
                                } else if (st != TransferStatus.SUCCESS) {
                                    failed.incrementAndGet();
                                    assertThat(f.wcStatus()).as(f.failureMessage())
                                            .isIn(WcStatus.RETRY_EXC_ERR, WcStatus.WR_FLUSH_ERR);
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : runs) {
                    f.get(100, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(p.a.router().isDead(1) && p.a.router().isDead(3)).as("rail 1's lanes left").isTrue();
            assertThat(p.a.completedOps()).isEqualTo(started.get());
            Checks.eventually(() -> p.a.ioPool().free() == p.a.ioPool().capacity(), WAIT, "every io slot back");
            for (int q : new int[] {0, 2}) {
                IoSendQueue sq = p.a.ioSendQueues()[q];
                int q0 = q;
                Checks.eventually(() -> sq.availableCredits() == 16, WAIT, "lane " + q0 + "'s credits back");
            }
            Patterns.fill(p.kvA, 0, 100_000, 9);
            success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(100_000)), WAIT);
            assertThat(Patterns.mismatch(p.kvB, 0, 100_000, 9)).isEqualTo(-1);
            p.assertClean();
            System.out.println("rail death under selective signaling: " + started.get() + " ops, " + failed.get()
                    + " failed, " + p.a.stats().reissued.sum() + " requests re-issued");
        }
    }

    /**
     * updatePeer with the info of a one-rail endpoint (its regions have no keys for other rails) on a
     * two-rail endpoint would let a request whose lanes are all on rail 0 be accepted, and its
     * re-issue onto rail 1 (or a lone immediate moved there) look the key up on the dispatch thread,
     * fail there and never complete: such info is refused at the call, as connect refuses it.
     */
    @Test
    void peerInfoWithoutAKeyForEveryRailIsRefusedAtTheCall() throws Exception {
        try (RailPair p = RailPair.inproc(2, EndpointConfig.builder().qps(4).build(), 1 << 20)) {
            EndpointInfo peer = p.b.info();
            Map<String, RegionInfo> regions = new LinkedHashMap<>(peer.regions());
            RegionInfo kv = regions.get("kv");
            regions.put("kv", new RegionInfo(kv.address(), kv.length(), kv.remoteKey(), kv.accessFlags())); // rail 0 only
            EndpointInfo oneRailKeys = new EndpointInfo(peer.name(), peer.address(), peer.messageSlots(), peer.immWindow(),
                    peer.ioQps(), peer.metaQp(), peer.dataQp(), regions); // valid info of a one-rail endpoint
            assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> p.a.updatePeer(oneRailKeys)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'kv'")
                    .hasMessageContaining("2 rails");
            Patterns.fill(p.kvA, 0, 4096, 5); // the info in use is unchanged
            success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(4096)), WAIT);
            assertThat(Patterns.mismatch(p.kvB, 0, 4096, 5)).isEqualTo(-1);
        }
    }
}
