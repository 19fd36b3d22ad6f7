package io.slime4j.conformance;

import static io.slime4j.conformance.Requests.compareSwap;
import static io.slime4j.conformance.Requests.fetchAdd;
import static io.slime4j.conformance.Requests.read;
import static io.slime4j.conformance.Requests.recv;
import static io.slime4j.conformance.Requests.send;
import static io.slime4j.conformance.Requests.write;
import static io.slime4j.verbs.WcStatus.REM_INV_REQ_ERR;
import static io.slime4j.verbs.WcStatus.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.conformance.QpPair.Side;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One-sided operations: RDMA reads across many MTUs, gather and scatter lists, the
 * {@code maxReadAtomic} limit, fences, and atomics (64-bit fetch-add and compare-and-swap, from
 * several queue pairs at once, refused when misaligned).
 *
 * <p>Each device runs it through a subclass in its own package (see {@link DeviceFixture}).
 */
public abstract class RemoteAccessConformance extends ConformanceSuite {
    protected RemoteAccessConformance(DeviceFixture fixture) {
        super(fixture);
    }

    // ----------------------------------------------------------------------------------- reads

    @Test
    @Timeout(30)
    public void aReadReturnsExactlyTheRemoteBytesAcrossManyMtus() {
        QpPair p = pair(qpConfig().mtu(1024).build());
        long seed = 801;
        long size = 4L * MIB + 3;
        long guard = 64;
        MemoryRegion remote = p.b.region(size + 2 * guard);
        MemoryRegion local = p.a.region(size + 2 * guard);
        Patterns.fill(remote.segment(), seed);
        Patterns.fillComplement(local.segment(), seed);

        WorkCompletion wc = p.a.runOk(read(1, local, guard, size, RemoteRegion.of(remote), guard));

        assertCompletion(wc, 1, SUCCESS, WcOpcode.RDMA_READ);
        assertThat(wc.byteLength()).as("byteLength of %s", wc).isEqualTo(size);
        Patterns.assertPattern(local.segment(), guard, size, seed, "bytes read");
        Patterns.assertComplement(local.segment(), 0, guard, seed, "local bytes before the read buffer");
        Patterns.assertComplement(local.segment(), guard + size, guard, seed, "local bytes after the read buffer");
    }

    @Test
    @Timeout(30)
    public void aReadScattersIntoSeveralEntriesInOrder() {
        QpPair p = pair(qpConfig().mtu(1024).build());
        long seed = 802;
        MemoryRegion remote = p.b.region(64 * KIB);
        MemoryRegion l1 = p.a.region(16 * KIB);
        MemoryRegion l2 = p.a.region(16 * KIB);
        Patterns.fill(remote.segment(), seed);
        Patterns.fillComplement(l1.segment(), seed);
        Patterns.fillComplement(l2.segment(), seed);

        // Remote [1000, 9007) lands in l1[1000, 6000), l2[200, 3200), l1[9000, 9007).
        WorkRequest wr = read(1, l1, 1000, 5000, RemoteRegion.of(remote), 1000).sge(l2, 200, 3000).sge(l1, 9000, 7);
        WorkCompletion wc = p.a.runOk(wr);

        assertThat(wc.byteLength()).as("byteLength of %s", wc).isEqualTo(8007);
        Patterns.assertPattern(l1.segment(), 1000, 5000, seed, 1000, "first SGE");
        Patterns.assertPattern(l2.segment(), 200, 3000, seed, 6000, "second SGE");
        Patterns.assertPattern(l1.segment(), 9000, 7, seed, 9000, "third SGE");
        Patterns.assertComplement(l1.segment(), 0, 1000, seed, "l1 before the first SGE");
        Patterns.assertComplement(l1.segment(), 6000, 3000, seed, "l1 between the SGEs");
        Patterns.assertComplement(l1.segment(), 9007, l1.length() - 9007, seed, "l1 after the third SGE");
        Patterns.assertComplement(l2.segment(), 0, 200, seed, "l2 before the second SGE");
        Patterns.assertComplement(l2.segment(), 3200, l2.length() - 3200, seed, "l2 after the second SGE");
    }

    @Test
    @Timeout(30)
    public void writesGatherAndReceivesScatterSeveralEntriesInOrder() {
        QpPair p = pair(qpConfig().mtu(1024).build());
        long seed = 803;
        MemoryRegion s1 = p.a.region(16 * KIB);
        MemoryRegion s2 = p.a.region(16 * KIB);
        MemoryRegion dst = p.b.region(16 * KIB);
        MemoryRegion r1 = p.b.region(16 * KIB);
        MemoryRegion r2 = p.b.region(16 * KIB);
        Patterns.fill(s1.segment(), seed);
        Patterns.fill(s2.segment(), seed + 1);
        Patterns.fillComplement(dst.segment(), seed);
        Patterns.fillComplement(r1.segment(), seed);
        Patterns.fillComplement(r2.segment(), seed);

        // WRITE gathers s1[100, 2100) + s2[50, 3050) + s1[5000, 5001) into dst[10, 5011).
        p.a.runOk(write(1, s1, 100, 2000, RemoteRegion.of(dst), 10).sge(s2, 50, 3000).sge(s1, 5000, 1));
        Patterns.assertPattern(dst.segment(), 10, 2000, seed, 100, "gathered piece 1");
        Patterns.assertPattern(dst.segment(), 2010, 3000, seed + 1, 50, "gathered piece 2");
        Patterns.assertPattern(dst.segment(), 5010, 1, seed, 5000, "gathered piece 3");
        Patterns.assertComplement(dst.segment(), 0, 10, seed, "before the write");
        Patterns.assertComplement(dst.segment(), 5011, dst.length() - 5011, seed, "after the write");

        // SEND of s1[0, 4000) into a receive scattering over r1[0, 1500) + r2[8, 8008).
        p.b.postRecv(recv(2, r1, 0, 1500).sge(r2, 8, 8000));
        p.a.runOk(send(3, s1, 0, 4000));
        assertReceive(p.b.recvCompletion(), 2, WcOpcode.RECV, 4000, null, p.b);
        Patterns.assertPattern(r1.segment(), 0, 1500, seed, 0, "scattered piece 1");
        Patterns.assertPattern(r2.segment(), 8, 2500, seed, 1500, "scattered piece 2");
        Patterns.assertComplement(r1.segment(), 1500, r1.length() - 1500, seed, "r1 after the message");
        Patterns.assertComplement(r2.segment(), 0, 8, seed, "r2 before the second SGE");
        Patterns.assertComplement(r2.segment(), 2508, r2.length() - 2508, seed, "r2 after the message");
    }

    // ------------------------------------------------------ read/atomic limits, fence, atomics

    @Test
    @Timeout(30)
    public void readsBeyondMaxReadAtomicWaitTheirTurnAndAllComplete() {
        QpPair p = pair(qpConfig().maxReadAtomic(2).build());
        long seed = 1201;
        long chunk = 64 * KIB;
        int reads = 10;
        MemoryRegion remote = p.b.region(reads * chunk);
        MemoryRegion local = p.a.region(reads * chunk);
        MemoryRegion src = p.a.region(reads * KIB);
        MemoryRegion dst = p.b.region(reads * KIB);
        Patterns.fill(remote.segment(), seed);
        Patterns.fillComplement(local.segment(), seed);
        Patterns.fill(src.segment(), seed + 1);
        Patterns.fillComplement(dst.segment(), seed + 1);

        // Reads interleaved with writes: completions still in post order.
        for (int i = 0; i < reads; i++) {
            p.a.post(read(2L * i, local, i * chunk, chunk, RemoteRegion.of(remote), i * chunk),
                    write(2L * i + 1, src, i * KIB, KIB, RemoteRegion.of(dst), i * KIB));
        }

        List<WorkCompletion> wcs = p.a.sendCompletions(2 * reads);
        for (int i = 0; i < 2 * reads; i++) {
            assertCompletion(wcs.get(i), i, SUCCESS, i % 2 == 0 ? WcOpcode.RDMA_READ : WcOpcode.RDMA_WRITE);
        }
        Patterns.assertPattern(local.segment(), 0, reads * chunk, seed, "data of 10 reads with maxReadAtomic 2");
        Patterns.assertPattern(dst.segment(), 0, reads * KIB, seed + 1, "data of the writes between them");
    }

    @Test
    @Timeout(30)
    public void aFencedWriteWaitsForEarlierReadsToComplete() {
        QpPair p = pair();
        long oldSeed = 1202;
        long newSeed = 1203;
        long size = MIB;
        MemoryRegion x = p.b.region(size);
        MemoryRegion local = p.a.region(size);
        MemoryRegion fresh = p.a.region(size);
        Patterns.fill(x.segment(), oldSeed);
        Patterns.fillComplement(local.segment(), oldSeed);
        Patterns.fill(fresh.segment(), newSeed);

        p.a.post(read(1, local, 0, size, RemoteRegion.of(x), 0),
                write(2, fresh, 0, size, RemoteRegion.of(x), 0).fence(true));

        List<WorkCompletion> wcs = p.a.sendCompletions(2);
        assertCompletion(wcs.get(0), 1, SUCCESS, WcOpcode.RDMA_READ);
        assertCompletion(wcs.get(1), 2, SUCCESS, WcOpcode.RDMA_WRITE);
        Patterns.assertPattern(local.segment(), 0, size, oldSeed, "what the READ saw before the fenced WRITE");
        Patterns.assertPattern(x.segment(), 0, size, newSeed, "remote memory after the fenced WRITE");
    }

    @Test
    @Timeout(30)
    public void fetchAddReturnsTheOldValueAndAddsAll64Bits() {
        QpPair p = pair();
        MemoryRegion target = p.b.region(4 * KIB);
        MemoryRegion result = p.a.region(4 * KIB);
        MemorySegment t = target.segment();
        MemorySegment r = result.segment();
        t.set(ValueLayout.JAVA_LONG, 64, 0xFFFF_FFFFL); // the add carries into the upper half
        r.set(ValueLayout.JAVA_LONG, 0, -1L);

        assertCompletion(p.a.runOk(fetchAdd(1, result, 0, RemoteRegion.of(target), 64, 2)), 1, SUCCESS,
                WcOpcode.FETCH_ADD);

        assertThat(r.get(ValueLayout.JAVA_LONG, 0)).as("old value returned").isEqualTo(0xFFFF_FFFFL);
        assertThat(t.get(ValueLayout.JAVA_LONG, 64)).as("remote word after the add").isEqualTo(0x1_0000_0001L);
        assertThat(t.get(ValueLayout.JAVA_LONG, 56)).as("the word before").isZero();
        assertThat(t.get(ValueLayout.JAVA_LONG, 72)).as("the word after").isZero();

        p.a.runOk(fetchAdd(2, result, 8, RemoteRegion.of(target), 64, -0x1_0000_0002L));
        assertThat(r.get(ValueLayout.JAVA_LONG, 8)).as("old value returned").isEqualTo(0x1_0000_0001L);
        assertThat(t.get(ValueLayout.JAVA_LONG, 64)).as("remote word after adding a negative number").isEqualTo(-1L);
    }

    @Test
    @Timeout(30)
    public void compareAndSwapSwapsOnlyWhenTheCompareValueMatches() {
        QpPair p = pair();
        MemoryRegion target = p.b.region(4 * KIB);
        MemoryRegion result = p.a.region(4 * KIB);
        MemorySegment t = target.segment();
        MemorySegment r = result.segment();
        long initial = 0x1234_5678_9ABC_DEF0L;
        long swap = 0x0FED_CBA9_8765_4321L;
        t.set(ValueLayout.JAVA_LONG, 8, initial);

        // The compare differs only in the upper 32 bits: a 32-bit compare would wrongly swap.
        p.a.runOk(compareSwap(1, result, 0, RemoteRegion.of(target), 8, initial ^ (1L << 40), swap));
        assertThat(r.get(ValueLayout.JAVA_LONG, 0)).as("old value returned by a failed compare").isEqualTo(initial);
        assertThat(t.get(ValueLayout.JAVA_LONG, 8)).as("remote word after a failed compare").isEqualTo(initial);

        assertCompletion(p.a.runOk(compareSwap(2, result, 8, RemoteRegion.of(target), 8, initial, swap)), 2, SUCCESS,
                WcOpcode.COMP_SWAP);
        assertThat(r.get(ValueLayout.JAVA_LONG, 8)).as("old value returned by a matching compare").isEqualTo(initial);
        assertThat(t.get(ValueLayout.JAVA_LONG, 8)).as("remote word after a matching compare").isEqualTo(swap);
    }

    @Test
    @Timeout(60)
    public void fetchAddsFromFourQueuePairsOnFourThreadsAreExact() throws Exception {
        int qps = 4;
        int perQp = 500;
        QpConfig config = qpConfig().build();
        VerbsDevice da = device();
        VerbsDevice db = device();
        ProtectionDomain pdB = domain(db);
        MemoryRegion target = resources.track(db, pdB.register(allocate(4 * KIB), AccessFlags.ALL));
        List<Side> requesters = new ArrayList<>();
        for (int q = 0; q < qps; q++) {
            Side a = side(da, domain(da), config);
            QpPair.connect(a, side(db, pdB, config));
            requesters.add(a);
        }

        ExecutorService pool = Executors.newFixedThreadPool(qps);
        try {
            List<Future<long[]>> futures = new ArrayList<>();
            for (Side a : requesters) {
                futures.add(pool.submit(() -> {
                    MemoryRegion results = a.region(perQp * 8L);
                    WorkRequest wr = new WorkRequest();
                    for (int i = 0; i < perQp; i++) {
                        wr.clear().wrId(i).opcode(Opcode.ATOMIC_FETCH_ADD).remote(RemoteRegion.of(target), 0)
                                .atomic(1, 0).sge(results, 8L * i, 8);
                        a.qp.postSend(wr); // posting copies: the request is reused at once
                    }
                    List<WorkCompletion> wcs = a.sendCompletions(perQp);
                    long[] old = new long[perQp];
                    for (int i = 0; i < perQp; i++) {
                        assertCompletion(wcs.get(i), i, SUCCESS, WcOpcode.FETCH_ADD);
                        old[i] = results.segment().get(ValueLayout.JAVA_LONG, 8L * i);
                    }
                    return old;
                }));
            }
            Set<Long> seen = new HashSet<>();
            for (Future<long[]> f : futures) {
                long[] old = f.get(50, TimeUnit.SECONDS);
                for (int i = 0; i < perQp; i++) {
                    assertThat(seen.add(old[i])).as("old value %d returned twice", old[i]).isTrue();
                    if (i > 0) {
                        assertThat(old[i]).as("old values of one queue pair increase (they execute in order)")
                                .isGreaterThan(old[i - 1]);
                    }
                }
            }
            assertThat(target.segment().get(ValueLayout.JAVA_LONG, 0)).as("final value").isEqualTo((long) qps * perQp);
            assertThat(seen).as("old values").hasSize(qps * perQp)
                    .allSatisfy(v -> assertThat(v).isBetween(0L, (long) qps * perQp - 1));
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Opcode.class, names = {"ATOMIC_FETCH_ADD", "ATOMIC_CMP_SWAP"})
    @Timeout(30)
    public void aMisalignedAtomicFailsWithRemoteInvalidRequest(Opcode opcode) {
        QpPair p = pair();
        Target t = new Target(p, AccessFlags.ALL, 1204);

        WorkCompletion wc = p.a.run(Requests.remote(opcode, 1, t.local, 0, 8, t.region.address() + 12,
                t.region.remoteKey()));

        assertCompletion(wc, 1, REM_INV_REQ_ERR, opcode.completionOpcode());
        t.assertUntouched("after a misaligned " + opcode);
        Completions.awaitState(p.a.qp, QpState.ERR);
    }
}
