package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.WcStatus;
import io.slime4j.wire.inproc.FaultConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Routing on real endpoints: what the selector is asked, where traffic goes, SAR pinning, striping
 * that completes only when every stripe has, and failover when a rail stops answering.
 */
@Timeout(120)
class RoutingTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Wraps a selector and records every question and answer. */
    static final class Recording implements QpSelector {
        final QpSelector inner;
        final Set<QpOpType> seen = ConcurrentHashMap.newKeySet();
        final Map<Long, Set<Integer>> segmentLanes = new ConcurrentHashMap<>();
        final Map<QpOpType, Set<Integer>> lanesByType = new ConcurrentHashMap<>();

        Recording(QpSelector inner) {
            this.inner = inner;
        }

        @Override
        public int select(QpOpType type, long messageId, int qps) {
            int lane = inner.select(type, messageId, qps);
            seen.add(type);
            lanesByType.computeIfAbsent(type, t -> ConcurrentHashMap.newKeySet()).add(lane);
            if (type.isSegment()) {
                segmentLanes.computeIfAbsent(messageId, m -> ConcurrentHashMap.newKeySet()).add(lane);
            }
            return lane;
        }

        @Override
        public long stripeBytes(QpOpType type, long length, int qps) {
            return inner.stripeBytes(type, length, qps);
        }
    }

    private static EndpointConfig.Builder config(int qps) {
        return EndpointConfig.builder().qps(qps).maxRequestBytes(64 << 10).stripeMinBytes(16 << 10);
    }

    /** A bit of every kind of traffic from a to b. */
    private static void everyKindOfTraffic(RailPair p) throws InterruptedException {
        Patterns.fill(p.kvA, 0, 1 << 20, 11);
        success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(1000)), WAIT);                 // WRITE
        success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(300 << 10)), WAIT);           // SAR (64 KiB segments)
        success(p.a.read(Assignment.local("kv", 1 << 20).remote("kv", 0).length(1000)), WAIT);           // READ
        TransferFuture got = p.b.immRecv();
        success(p.a.writeWithImm(List.of(Assignment.local("kv", 0).remote("kv", 0).length(4096), Assignment.local("kv", 8192).remote("kv", 8192).length(4096),
                Assignment.local("kv", 16384).remote("kv", 16384).length(4096)), 42), WAIT);     // spread: EAGER immediate
        assertThat(success(got, WAIT).immediate()).isEqualTo(42);
        TransferFuture r = p.b.recv("kv", 2 << 20, 20_000);               // CONTROL (above the eager threshold: a meta)
        success(p.a.send("kv", 0, 10_000), WAIT);                        // RENDEZVOUS_DATA
        assertThat(success(r, WAIT).byteCount()).isEqualTo(10_000);
        assertThat(Patterns.mismatch(p.kvB, 0, 300 << 10, 11)).isEqualTo(-1);
    }

    @Test
    void theSelectorIsAskedForEveryOpTypeTheEndpointIssues() throws Exception {
        Recording[] rec = new Recording[2];
        QpSelector.Factory f = (q, c) -> rec[rec[0] == null ? 0 : 1] = new Recording(QpSelector.roundRobin(false));
        try (RailPair p = RailPair.inproc(1, config(4).selector(f).build(), 4 << 20)) {
            everyKindOfTraffic(p);
            Set<QpOpType> seen = EnumSet.noneOf(QpOpType.class);
            seen.addAll(rec[0].seen);
            seen.addAll(rec[1].seen);
            assertThat(seen).as("every type but ATOMIC (the endpoint issues no atomics)")
                    .containsAll(EnumSet.complementOf(EnumSet.of(QpOpType.ATOMIC)));
            p.assertClean();
        }
    }

    @Test
    void roundRobinKeepsControlOnLaneZeroAndOneSidedTrafficOnTheOtherLanes() throws Exception {
        Recording[] rec = new Recording[2];
        QpSelector.Factory f = (q, c) -> rec[rec[0] == null ? 0 : 1] = new Recording(QpSelector.roundRobin(false));
        try (RailPair p = RailPair.inproc(1, config(4).selector(f).build(), 4 << 20)) {
            for (int i = 0; i < 5; i++) {
                everyKindOfTraffic(p);
            }
            for (Recording r : rec) {
                for (QpOpType t : List.of(QpOpType.CONTROL, QpOpType.RENDEZVOUS_DATA, QpOpType.EAGER)) {
                    assertThat(r.lanesByType.getOrDefault(t, Set.of(0))).as("%s lanes", t).containsOnly(0);
                }
            }
            long[] posted = RailPair.postedPerLane(p.a);
            assertThat(posted[0]).as("lane 0's io queue pair carries only the 5 lone (fenced) immediates").isEqualTo(5);
            for (int i = 1; i < 4; i++) {
                assertThat(posted[i]).as("requests on lane %d", i).isPositive();
            }
            Transport t = p.a.transport();
            assertThat(t.meta.counters().get(Counter.WR_POSTED) + p.b.transport().meta.counters().get(Counter.WR_POSTED))
                    .as("control on the meta queue pair of lane 0").isPositive();
            assertThat(t.data.counters().get(Counter.WR_POSTED)).as("message data on lane 0's data queue pair")
                    .isPositive();
            p.assertClean();
        }
    }

    @Test
    void theSegmentsOfOneMessageNeverSplitAcrossLanes() throws Exception {
        Recording[] rec = new Recording[2];
        QpSelector.Factory f = (q, c) -> rec[rec[0] == null ? 0 : 1] = new Recording(QpSelector.roundRobin(false));
        try (RailPair p = RailPair.inproc(2, config(8).selector(f).build(), 32 << 20)) {
            Patterns.fill(p.kvA, 0, 16 << 20, 5);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> runs = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    long base = (long) t * (4 << 20);
                    runs.add(pool.submit(() -> {
                        List<TransferFuture> fs = new ArrayList<>();
                        for (int k = 0; k < 4; k++) { // 1 MiB units of 16 segments, interleaved with other threads
                            long off = base + ((long) k << 20);
                            fs.add(p.a.write(Assignment.local("kv", off).remote("kv", off).length(1 << 20)));
                        }
                        for (TransferFuture x : fs) {
                            success(x, WAIT);
                        }
                        return null;
                    }));
                }
                for (Future<?> r : runs) {
                    r.get(90, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(rec[0].segmentLanes).hasSize(16);
            rec[0].segmentLanes.forEach((m, lanes) -> assertThat(lanes).as("lanes of message %d", m).hasSize(1));
            assertThat(Patterns.mismatch(p.kvB, 0, 16 << 20, 5)).isEqualTo(-1);
            assertThat(((RoundRobinSelector) rec[0].inner).pinnedUnits()).isZero();
            p.assertClean();
        }
    }

    @Test
    void aStripedOpCompletesOnlyWhenEveryStripeHasLanded() throws Exception {
        // a long ACK timeout: the blocked rail must not run out of retries while the test looks
        // and 4 KiB packets, so that each lane's stripe is exactly 1 MiB (stripes are whole packets)
        QpConfig patient = QpConfig.builder().ackTimeout(Duration.ofSeconds(3)).mtu(4096).build();
        EndpointConfig c = config(4).selector("striped").qpTemplate(patient).build();
        try (RailPair p = RailPair.inproc(2, c, 8 << 20)) {
            for (int s = 0; s < 4; s++) {
                Patterns.fill(p.kvA, (long) s << 20, 1 << 20, 21 + s);
            }
            p.inprocWires.get(1).setFaults(FaultConfig.builder().dropRate(1.0).build()); // rail 1 (lanes 1, 3) goes dark
            TransferFuture f = p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(4 << 20)); // four 1 MiB stripes, one per lane
            Checks.eventually(() -> exactStripes(p) == 2, WAIT, "the stripes on rail 0 landed");
            assertThat(f.isDone()).as("done with two stripes missing").isFalse();
            assertThat(exactStripes(p)).isEqualTo(2);
            p.inprocWires.get(1).setFaults(FaultConfig.NONE);
            success(f, WAIT);
            assertThat(exactStripes(p)).isEqualTo(4);
            assertThat(p.a.router().isDead(1) || p.a.router().isDead(3)).isFalse();
            p.assertClean();
        }
    }

    @Test
    void stripesAreCutOnPacketBoundariesSoStripingAddsNoPackets() throws Exception {
        // 1 MiB over 3 lanes at a 4 KiB MTU: ceil(1 MiB / 3) is 85.3 packets; cut there, each stripe
        // would end in a partial packet (258 in all); rounded up to 86 packets, the last stripe is 84
        QpConfig mtu4k = QpConfig.builder().mtu(4096).build();
        try (RailPair p = RailPair.inproc(1, config(3).selector("striped").qpTemplate(mtu4k).build(), 2 << 20)) {
            Patterns.fill(p.kvA, 0, 1 << 20, 17);
            success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(1 << 20)), WAIT);
            assertThat(Patterns.mismatch(p.kvB, 0, 1 << 20, 17)).isEqualTo(-1);
            long packets = 0;
            long[] perLane = new long[3];
            for (int i = 0; i < 3; i++) {
                // first transmissions: a loaded machine may delay an ACK past a tail-loss probe's timer, and the
                // probe's resend is not a packet striping added
                Counters c = p.a.transport().io[i].counters();
                perLane[i] = c.get(Counter.PACKETS_SENT) - c.get(Counter.RETRANSMITS);
                packets += perLane[i];
            }
            assertThat(packets).as("packets of the striped write, as on one lane").isEqualTo((1 << 20) / 4096);
            assertThat(perLane).as("stripes of 86, 86 and 84 packets").containsExactlyInAnyOrder(86L, 86L, 84L);
            p.assertClean();
        }
    }

    private static int exactStripes(RailPair p) {
        int n = 0;
        for (int s = 0; s < 4; s++) {
            n += Patterns.mismatch(p.kvB, (long) s << 20, 1 << 20, 21 + s) == -1 ? 1 : 0;
        }
        return n;
    }

    @Test
    void aRailThatStopsAnsweringLeavesTheRotationAndItsReadsAndWritesRunOnTheOthers() throws Exception {
        QpConfig impatient = QpConfig.builder().ackTimeout(Duration.ofMillis(50)).retryCount(4).build(); // a dead rail fails in ~1.5 s; a busy one does not
        Recording[] rec = new Recording[2];
        EndpointConfig c = config(4).qpTemplate(impatient)
                .selector((q, cfg) -> rec[rec[0] == null ? 0 : 1] = new Recording(QpSelector.roundRobin(true))).build();
        try (RailPair p = RailPair.inproc(2, c, 16 << 20)) {
            Patterns.fill(p.kvA, 0, 4 << 20, 33);
            Patterns.fill(p.kvB, 8 << 20, 4 << 20, 34);
            p.inprocWires.get(1).setFaults(FaultConfig.builder().dropRate(1.0).build()); // kill rail 1's wire
            List<TransferFuture> writes = new ArrayList<>();
            List<TransferFuture> reads = new ArrayList<>();
            for (int k = 0; k < 16; k++) { // 256 KiB units: segmented, pinned, round-robin over all four lanes
                long off = (long) k << 18;
                writes.add(p.a.write(Assignment.local("kv", off).remote("kv", off).length(1 << 18)));
                reads.add(p.a.read(Assignment.local("kv", (8 << 20) + off).remote("kv", (8 << 20) + off).length(1 << 18)));
            }
            for (TransferFuture f : writes) {
                success(f, WAIT);
            }
            for (TransferFuture f : reads) {
                success(f, WAIT);
            }
            assertThat(Patterns.mismatch(p.kvB, 0, 4 << 20, 33)).isEqualTo(-1);
            assertThat(Patterns.mismatch(p.kvA, 8 << 20, 4 << 20, 34)).isEqualTo(-1);
            assertThat(rec[0].lanesByType.get(QpOpType.SAR_FIRST)).as("units were routed to rail 1").contains(1, 3);
            assertThat(p.a.router().isDead(1)).isTrue();
            assertThat(p.a.router().isDead(3)).isTrue();
            assertThat(p.a.router().isDead(0) || p.a.router().isDead(2)).isFalse();
            assertThat(p.a.stats().reissued.sum()).as("requests re-issued on rail 0").isPositive();
            // the endpoint stays usable: new ops avoid the failed lanes, messages still flow
            for (int k = 0; k < 4; k++) { // four units in turn: two of them chose a failed lane
                success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(1 << 20)), WAIT);
            }
            assertThat(p.a.router().rerouted.sum()).isPositive();
            assertThat(Patterns.mismatch(p.kvB, 0, 4 << 20, 33)).isEqualTo(-1);
            TransferFuture got = p.b.immRecv();
            success(p.a.writeWithImm(List.of(Assignment.local("kv", 0).remote("kv", 0).length(1 << 20)), 7), WAIT);
            assertThat(success(got, WAIT).immediate()).isEqualTo(7);
            TransferFuture r = p.b.recv("kv", 12 << 20, 100);
            success(p.a.send("kv", 0, 100), WAIT);
            success(r, WAIT);
            p.assertClean();
        }
    }

    @Test
    void aWriteWithImmWhoseImmediateWasOnAFailedLaneFailsClearlyInsteadOfHanging() throws Exception {
        QpConfig impatient = QpConfig.builder().ackTimeout(Duration.ofMillis(50)).retryCount(4).build(); // a dead rail fails in ~1.5 s; a busy one does not
        QpSelector lane1 = (type, id, qps) -> type.isMessagePath() ? 0 : 1; // everything one-sided on rail 1
        EndpointConfig c = config(2).qpTemplate(impatient).selector((q, cfg) -> lane1).build();
        try (RailPair p = RailPair.inproc(2, c, 1 << 20)) {
            p.inprocWires.get(1).setFaults(FaultConfig.builder().dropRate(1.0).build());
            TransferFuture f = p.a.writeWithImm(List.of(Assignment.local("kv", 0).remote("kv", 0).length(4096)), 9);
            assertThat(f.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(f.wcStatus()).isIn(WcStatus.RETRY_EXC_ERR, WcStatus.WR_FLUSH_ERR);
            assertThat(f.failureMessage()).contains("io QP 1");
            // lane 1 is out: the same selector's answers now go to lane 0, and succeed
            success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(4096)), WAIT);
            assertThat(p.a.router().isDead(1)).isTrue();
            p.assertClean();
        }
    }

    @Test
    void aCustomSelectorsBadAnswersAreCaughtAtTheCallOrCountedNeverFollowed() throws Exception {
        QpSelector wild = (type, id, qps) -> type == QpOpType.CONTROL ? 2 : type == QpOpType.WRITE ? 99 : 1;
        try (RailPair p = RailPair.inproc(1, config(4).selector((q, cfg) -> wild).build(), 1 << 20)) {
            assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(100))))
                    .isInstanceOf(EndpointException.class).hasMessageContaining("chose lane 99 for WRITE")
                    .hasMessageContaining("lanes are 0..3");
            success(p.a.read(Assignment.local("kv", 0).remote("kv", 0).length(100)), WAIT); // READ -> lane 1: fine
            TransferFuture r = p.b.recv("kv", 0, 10_000); // CONTROL (a meta: above the eager threshold) -> 2: counted, sent on lane 0 anyway
            success(p.a.send("kv", 0, 9_000), WAIT);
            success(r, WAIT);
            assertThat(p.b.router().misroutes.sum()).isPositive();
        }
    }
}
