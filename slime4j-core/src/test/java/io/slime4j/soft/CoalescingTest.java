package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import io.slime4j.wire.inproc.InprocWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Coalescing through two whole devices on the in-process wire, each turn driven by the test
 * ({@code doWork(now)}): small operations posted to one peer before a turn leave in fewer
 * datagrams than packets, the receiver splits them and executes every one, and its ACKs for
 * them travel back coalesced too.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class CoalescingTest {
    private static final int N = 16;
    private static final int SIZE = 32;

    private final InprocWire wire = new InprocWire();
    private final Arena arena = Arena.ofShared();
    private final long now = System.nanoTime();
    private SoftDevice a;
    private SoftDevice b;

    /** One connected pair of queue pairs, a on device a, b on device b, with a source and a target region. */
    private final class Pair {
        final QueuePair qpA;
        final QueuePair qpB;
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final MemoryRegion source;
        final MemoryRegion target;
        final ProtectionDomain pdA;
        final ProtectionDomain pdB;

        Pair(int seed) {
            pdA = a.allocateProtectionDomain();
            pdB = b.allocateProtectionDomain();
            cqA = a.createCompletionQueue(4 * N);
            cqB = b.createCompletionQueue(4 * N);
            QpConfig config = QpConfig.defaults().toBuilder().mtu(4096).build(); // the pipe counts every packet as a full one
            qpA = a.createQueuePair(pdA, config, cqA, cqA);
            qpB = b.createQueuePair(pdB, config, cqB, cqB);
            ConnectedQueuePairs.connect(qpA, qpB);
            MemorySegment src = arena.allocate((long) N * SIZE);
            for (int i = 0; i < N * SIZE; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
            }
            source = pdA.register(src, AccessFlags.LOCAL_WRITE);
            target = pdB.register(arena.allocate((long) N * SIZE), AccessFlags.ALL);
        }

        void postWrites(int n) {
            for (int i = 0; i < n; i++) {
                qpA.postSend(new WorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE).signaled(true)
                        .sge(source, (long) i * SIZE, SIZE).remote(target.address() + (long) i * SIZE,
                                target.remoteKey()));
            }
        }

        void assertAllCompletedAndLanded(int n) {
            WorkCompletion[] wc = WorkCompletion.array(4 * N);
            int polled = cqA.poll(wc);
            assertThat(polled).isEqualTo(n);
            for (int i = 0; i < polled; i++) {
                assertThat(wc[i].status()).isEqualTo(WcStatus.SUCCESS);
            }
            assertThat(target.segment().asSlice(0, (long) n * SIZE).mismatch(source.segment().asSlice(0, (long) n * SIZE)))
                    .as("the bytes arrived").isEqualTo(-1);
        }
    }

    private void open(int coalesceLimit) {
        a = SoftDevice.openUndriven(wire.bind("a"), SoftConfig.builder().name("coal-a").coalesceLimit(coalesceLimit).build());
        b = SoftDevice.openUndriven(wire.bind("b"), SoftConfig.builder().name("coal-b").coalesceLimit(coalesceLimit).build());
    }

    @AfterEach
    void close() {
        if (a != null) {
            a.close();
            b.close();
        }
        arena.close();
    }

    private static long datagrams(SoftDevice d) {
        return d.protocolCounters().get(SoftCounter.DATAGRAMS_SENT);
    }

    private static long packets(SoftDevice d) {
        return d.counters().get(Counter.PACKETS_SENT);
    }

    @Test
    void smallWritesPostedInOneTurnLeaveInOneDatagramAndAreEachExecuted() {
        open(2048);
        Pair p = new Pair(1);
        p.postWrites(N);
        a.doWork(now);

        assertThat(packets(a)).as("one packet per write").isEqualTo(N);
        // the first packet, with nothing of its stream in flight before it, takes the priority
        // channel (docs/WIRE.md); the other fifteen leave in one bundle on the data channel
        assertThat(datagrams(a)).as("one datagram per channel").isEqualTo(2);
        assertThat(a.protocolCounters().get(SoftCounter.COALESCED_PACKETS_SENT)).isEqualTo(N - 1);

        b.doWork(now);
        assertThat(b.protocolCounters().get(SoftCounter.BUNDLES_RECEIVED)).isEqualTo(1);
        assertThat(b.counters().get(Counter.PACKETS_RECEIVED)).isEqualTo(N);
        assertThat(b.protocolCounters().get(SoftCounter.BAD_BUNDLES)).isZero();
        assertThat(b.protocolCounters().get(SoftCounter.BAD_PACKETS)).isZero();
        assertThat(datagrams(b)).as("the ACKs went back in at most as many datagrams as ACKs, and fewer")
                .isLessThanOrEqualTo(Math.max(1, b.protocolCounters().get(SoftCounter.ACKS_SENT) - 1));

        a.doWork(now);
        p.assertAllCompletedAndLanded(N);
    }

    @Test
    void packetsOfSeveralQueuePairsToThePeerShareTheDatagram() {
        open(2048);
        Pair p1 = new Pair(1);
        Pair p2 = new Pair(2);
        p1.postWrites(4);
        p2.postWrites(4);
        a.doWork(now);

        assertThat(packets(a)).isEqualTo(8);
        assertThat(datagrams(a)).as("each pair's first on the priority channel, all with each other").isEqualTo(2);
        assertThat(p1.qpA.counters().get(Counter.PACKETS_SENT)).as("still counted per queue pair").isEqualTo(4);
        assertThat(p2.qpA.counters().get(Counter.PACKETS_SENT)).isEqualTo(4);

        b.doWork(now);
        a.doWork(now);
        p1.assertAllCompletedAndLanded(4);
        p2.assertAllCompletedAndLanded(4);
    }

    @Test
    void withCoalescingOffEveryPacketIsADatagramOfItsOwn() {
        open(0);
        Pair p = new Pair(1);
        p.postWrites(N);
        a.doWork(now);
        assertThat(datagrams(a)).isEqualTo(packets(a)).isEqualTo(N);
        b.doWork(now);
        assertThat(b.protocolCounters().get(SoftCounter.BUNDLES_RECEIVED)).isZero();
        a.doWork(now);
        p.assertAllCompletedAndLanded(N);
    }

    @Test
    void aPacketTooLargeToCoalesceLeavesAfterTheSmallOnesHeldBeforeIt() {
        open(2048);
        Pair p = new Pair(1);
        p.postWrites(3);
        MemorySegment src = arena.allocate(8192);
        src.fill((byte) 5);
        MemoryRegion bigSource = p.pdA.register(src, AccessFlags.LOCAL_WRITE);
        MemoryRegion bigTarget = p.pdB.register(arena.allocate(8192), AccessFlags.ALL);
        p.qpA.postSend(new WorkRequest().wrId(99).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(bigSource, 0, 4000).remote(bigTarget.address(), bigTarget.remoteKey()));
        a.doWork(now);
        // the first small packet takes the priority channel; the next two leave as one bundle on the
        // data channel before the large one (the channel keeps its order), then the large one alone
        assertThat(packets(a)).isEqualTo(4);
        assertThat(datagrams(a)).isEqualTo(3);
        b.doWork(now);
        assertThat(b.counters().get(Counter.PACKETS_RECEIVED)).isEqualTo(4);
        assertThat(b.protocolCounters().get(SoftCounter.OUT_OF_ORDER)).as("the channel kept its order").isZero();
        a.doWork(now);
        WorkCompletion[] wc = WorkCompletion.array(8);
        assertThat(p.cqA.poll(wc)).isEqualTo(4);
        assertThat(bigTarget.segment().asSlice(0, 4000).mismatch(src.asSlice(0, 4000))).isEqualTo(-1);
    }

    @Test
    void theShortTailOfAWriteOfSeveralPacketsLeavesUncoalescedAsTheLastOfItsRun() {
        open(2048);
        Pair p = new Pair(1);
        MemorySegment src = arena.allocate(8192);
        src.fill((byte) 7);
        MemoryRegion bigSource = p.pdA.register(src, AccessFlags.LOCAL_WRITE);
        MemoryRegion bigTarget = p.pdB.register(arena.allocate(8192), AccessFlags.ALL);
        p.qpA.postSend(new WorkRequest().wrId(99).opcode(Opcode.RDMA_WRITE).signaled(true)
                .sge(bigSource, 0, 4096 + 100).remote(bigTarget.address(), bigTarget.remoteKey()));
        p.postWrites(2);
        a.doWork(now);
        // the write's 100-byte tail would fit a bundle with the two small writes after it, but it
        // stays a datagram of its own (on a GSO port: the last of its write's run, no call of its
        // own); the two small writes share one bundle
        assertThat(packets(a)).isEqualTo(4);
        assertThat(a.protocolCounters().get(SoftCounter.COALESCED_PACKETS_SENT)).isEqualTo(2);
        assertThat(datagrams(a)).isEqualTo(3);
        b.doWork(now);
        a.doWork(now);
        WorkCompletion[] wc = WorkCompletion.array(8);
        assertThat(p.cqA.poll(wc)).isEqualTo(3);
        assertThat(bigTarget.segment().asSlice(0, 4196).mismatch(src.asSlice(0, 4196))).isEqualTo(-1);
    }
}
