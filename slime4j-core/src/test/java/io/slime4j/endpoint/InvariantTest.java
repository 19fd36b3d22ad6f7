package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.wire.inproc.FaultConfig;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ownership invariants I1–I5 of docs/ENDPOINT.md (seed 000). Each {@code checkIn} runs a
 * scenario that depends on the invariant and asserts on the outcome and on internal state; each
 * test runs it with the real endpoint (it passes) and with {@link BrokenHooks} breaking exactly that
 * invariant (it must fail) — so a test that could not catch a regression would itself fail.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InvariantTest {

    // ------------------------------------------------------------------ I1 signal exclusivity

    @Test
    void i1_eachOpHasItsOwnSignal_andOnlyItsCompletionWakesItsWaiters() throws Exception {
        checkI1(WatchedHooks.KEEPING_ALL);
        assertThatThrownBy(() -> checkI1(BrokenHooks.sharedSignal())).isInstanceOf(AssertionError.class)
                .hasMessageFindingMatch("stays fired|not its own");
        assertThatThrownBy(() -> checkI1(BrokenHooks.sharedOneShotSignal())).isInstanceOf(AssertionError.class)
                .hasMessageContaining("not its own");
    }

    static void checkI1(EndpointHooks hooks) throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().qps(2).build(), FaultConfig.NONE, 1 << 20, hooks)) {
            TransferFuture pending = p.b.recv("kv", 0, 64); // completes only when a sends
            AtomicReference<TransferStatus> seen = new AtomicReference<>();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    seen.set(pending.await());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Set<OpSignal> signals = Collections.newSetFromMap(new IdentityHashMap<>());
            signals.add(pending.op().signal);
            for (int i = 0; i < 200; i++) {
                TransferFuture f = p.a.write(Assignment.local("kv", 4096 + i * 64L).remote("kv", 4096 + i * 64L).length(64));
                signals.add(f.op().signal);
                TransferStatus status;
                try {
                    status = f.await(Duration.ofSeconds(5));
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("await of " + f + " timed out: its wakeup was not its own (lost to another op)");
                }
                assertThat(status).as("status of %s when its await returned "
                        + "(else it was woken by a completion that was not its own)", f).isEqualTo(TransferStatus.SUCCESS);
                assertThat(f.op().signal.isFired()).as("a completed op's signal stays fired").isTrue();
            }
            waiter.join(100);
            assertThat(waiter.isAlive()).as("the waiter of a pending op is still waiting after 200 other completions "
                    + "(it returned %s, woken by a completion that was not its own)", seen.get()).isTrue();
            assertThat(pending.isDone()).isFalse();
            assertThat(signals).as("distinct signals of 201 ops").hasSize(201);
            success(p.a.send("kv", 0, 64));
            waiter.join(10_000);
            assertThat(seen.get()).isEqualTo(TransferStatus.SUCCESS);
            p.assertClean();
        }
    }

    // ------------------------------------------------------------------ I2 slot-reuse safety

    @Test
    void i2_aSlotReturnsToItsRingOnlyAfterTheLastCompletionOfItsLease() throws Exception {
        checkI2(WatchedHooks.KEEPING_ALL);
        assertThatThrownBy(() -> checkI2(BrokenHooks.earlySlotRelease())).isInstanceOf(AssertionError.class)
                .hasMessageContaining("not its own");
    }

    static void checkI2(EndpointHooks hooks) throws Exception {
        // two slots, 8 requests each, 4 queue pairs: every op fills one slot with requests that
        // complete in different orders, and slots are re-leased all the time
        EndpointConfig cfg = EndpointConfig.builder().qps(4).ioSlots(2).requestsPerSlot(8).maxRequestBytes(1024)
                .slotTimeout(Duration.ofSeconds(10)).build();
        int threads = 4;
        int opsPerThread = 150;
        int bytes = 8 * 1024;
        try (EndpointPair p = EndpointPair.open(cfg, FaultConfig.NONE, 2L * threads * bytes * 2, hooks)) {
            List<Thread> ts = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < opsPerThread && failure.get() == null; i++) {
                            long off = (long) (id * 2 + (i & 1)) * bytes;
                            long seed = id * 1_000_000L + i;
                            Patterns.fill(p.kvA, off, bytes, seed);
                            TransferFuture f = p.a.write(Assignment.local("kv", off).remote("kv", off).length(bytes));
                            success(f);
                            assertThat(Patterns.mismatch(p.kvB, off, bytes, seed))
                                    .as("bytes of op %s when its future completed", f).isEqualTo(-1);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : ts) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("an op observed a completion that was not its own", failure.get());
            }
            p.awaitIdle(Duration.ofSeconds(10));
            assertThat(p.a.ioPool().leases()).isEqualTo((long) threads * opsPerThread);
            p.assertClean();
        }
    }

    @Test
    void i2_aSlotIsNeverLeasedTwiceNorReleasedWithoutALease() throws Exception {
        SlotPool pool = new SlotPool("test", 3, 1, 0);
        List<Slot> leased = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            leased.add(pool.acquire(0));
        }
        assertThat(leased).doesNotHaveDuplicates().doesNotContainNull();
        assertThat(pool.acquire(TimeUnit.MILLISECONDS.toNanos(20))).as("a lease while all are leased").isNull();
        pool.release(leased.get(1));
        assertThatThrownBy(() -> pool.release(leased.get(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("released but not leased");
        assertThat(pool.acquire(0)).isSameAs(leased.get(1));
    }

    // ------------------------------------------------------------------ I3 callback lifetime

    @Test
    void i3_aCompletionReachesItsOpThroughTheLeaseEvenWhenNothingElseHoldsIt() throws Exception {
        checkI3(WatchedHooks.KEEPING_ALL);
        assertThatThrownBy(() -> checkI3(BrokenHooks.weakLease())).isInstanceOf(AssertionError.class)
                .hasMessageContaining("collected although their slots lease them");
    }

    static void checkI3(EndpointHooks hooks) throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), FaultConfig.NONE, 1 << 20, hooks)) {
            int n = 32;
            List<WeakReference<OpState>> ops = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ops.add(new WeakReference<>(p.b.recv("kv", i * 64L, 64).op())); // the future is dropped at once
            }
            long completedBefore = p.b.completedOps();
            Checks.gcUntil(() -> ops.stream().anyMatch(r -> r.get() == null), 5);
            assertThat(ops.stream().filter(r -> r.get() == null).count())
                    .as("pending recv ops collected although their slots lease them").isZero();
            for (int i = 0; i < n; i++) {
                success(p.a.send("kv", i * 64L, 64));
            }
            Checks.eventually(() -> p.b.completedOps() - completedBefore == n, Duration.ofSeconds(10),
                    n + " recv ops without futures completing");
            p.awaitIdle(Duration.ofSeconds(10));
            p.assertClean();
        }
    }

    // ------------------------------------------------------------------ I4 op lifetime

    @Test
    void i4_aCompletedOpIsHeldByItsFutureAlone_neitherTheRegistryNorAReleasedSlotPinsIt() throws Exception {
        checkI4(WatchedHooks.KEEPING_ALL);
        assertThatThrownBy(() -> checkI4(BrokenHooks.slotKeepsOp())).isInstanceOf(AssertionError.class)
                .hasMessageContaining("still reachable after their futures were dropped");
    }

    static void checkI4(EndpointHooks hooks) throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().qps(2).ioSlots(4).build();
        try (EndpointPair p = EndpointPair.open(cfg, FaultConfig.NONE, 1 << 20, hooks)) {
            List<WeakReference<OpState>> dropped = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                dropped.add(new WeakReference<>(success(p.a.write(Assignment.local("kv", i * 64L).remote("kv", i * 64L).length(64))).op()));
            }
            TransferFuture recv = p.b.recv("kv", 8192, 64);
            success(p.a.send("kv", 8192, 64));
            dropped.add(new WeakReference<>(success(recv).op()));
            TransferFuture kept = success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(64)));
            WeakReference<OpState> keptOp = new WeakReference<>(kept.op());
            recv = null;
            p.awaitIdle(Duration.ofSeconds(5));
            Checks.gcUntil(() -> dropped.stream().allMatch(r -> r.get() == null), 50);
            assertThat(dropped.stream().filter(r -> r.get() != null).count())
                    .as("completed ops still reachable after their futures were dropped").isZero();
            assertThat((Object) keptOp.get()).as("the op of a future still held").isNotNull().isSameAs(kept.op());
            assertThat(p.a.inFlight() + p.b.inFlight()).as("ops in the in-flight registries").isZero();
            p.assertClean();
        }
    }

    @Test
    void i4_theInFlightRegistryIsWeak() throws Exception {
        OpTracker tracker = new OpTracker("t", EndpointHooks.DEFAULT, Runnable::run);
        List<WeakReference<OpState>> refs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            refs.add(new WeakReference<>(tracker.newOp(OpKind.WRITE, 0))); // registered, never completed, dropped
        }
        OpState live = tracker.newOp(OpKind.READ, 0);
        assertThat(Checks.gcUntil(() -> refs.stream().allMatch(r -> r.get() == null), 50))
                .as("registered but unreachable ops are collected").isTrue();
        Checks.gcUntil(() -> tracker.inFlight() == 1, 50);
        assertThat(tracker.inFlight()).as("entries left after expunging collected ops").isEqualTo(1);
        assertThat(tracker.cancelAll("test")).isEqualTo(1);
        assertThat(live.future().status()).isEqualTo(TransferStatus.CANCELLED);
    }

    // ------------------------------------------------------------------ I5 receive windows

    @Test
    void i5_receiveWindowsArePrePostedAndRepostedBeforeRelease_soNoPeerEverSeesRnr() throws Exception {
        assertThat(EndpointHooks.DEFAULT.watchWindowsAtRelease()).as("the I5 detector on a real endpoint's release path")
                .isFalse();
        checkI5(WatchedHooks.KEEPING_ALL);
        assertThatThrownBy(() -> checkI5(BrokenHooks.thinWindows())).isInstanceOf(AssertionError.class)
                .hasMessageContaining("RNR");
        assertThatThrownBy(() -> checkI5(BrokenHooks.repostAfterRelease())).isInstanceOf(AssertionError.class)
                .hasMessageContaining("short window");
    }

    static void checkI5(EndpointHooks hooks) throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().qps(2).messageSlots(32).immWindow(16)
                .slotTimeout(Duration.ofSeconds(3)).build();
        try (EndpointPair p = EndpointPair.open(cfg, FaultConfig.NONE, 1 << 20, hooks)) {
            int missingAfterConnect = p.a.transport().windowsMissing() + p.b.transport().windowsMissing();
            Throwable scenario = null;
            try {
                burstsThatNeedPrimedWindows(p);
            } catch (Throwable t) {
                scenario = t;
            }
            // I5's promise first: a short window shows as RNR (and may then stall the soft engine, see ENDPOINT.md)
            assertThat(p.rnrNaks()).as("RNR NAKs on either device").isZero();
            if (scenario != null) {
                throw new AssertionError("bursts failed without RNR", scenario);
            }
            assertThat(missingAfterConnect).as("receives missing from the windows right after connect").isZero();
            assertThat(p.a.stats().windowShortAtRelease.sum() + p.b.stats().windowShortAtRelease.sum())
                    .as("slot releases with a short window").isZero();
            // the last receive a peer consumed is re-posted by its dispatcher a moment after the op it
            // belongs to completed on the other side: wait (bounded) for both to be between completions
            long quiet = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (p.a.transport().windowsMissing() + p.b.transport().windowsMissing() != 0 && System.nanoTime() < quiet) {
                Thread.sleep(1);
            }
            assertThat(p.a.transport().windowsMissing() + p.b.transport().windowsMissing())
                    .as("receives missing from the windows").isZero();
            p.assertClean();
        }
    }

    private static void burstsThatNeedPrimedWindows(EndpointPair p) throws Exception {
        Duration wait = Duration.ofSeconds(3);
        for (int round = 0; round < 3; round++) {
            // recvs long before sends: every meta lands in a's meta window with no send waiting
            List<TransferFuture> recvs = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                recvs.add(p.b.recv("kv", i * 128L, 128));
            }
            Thread.sleep(20);
            List<TransferFuture> sends = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                sends.add(p.a.send("kv", i * 128L, 100));
            }
            // writes-with-imm long before any immRecv: 4 windows' worth, credits pace them
            List<TransferFuture> writes = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                writes.add(p.a.writeWithImm(List.of(Assignment.local("kv", 65536 + i * 8L).remote("kv", 65536 + i * 8L).length(8)), round * 100 + i));
            }
            for (TransferFuture f : writes) {
                success(f, wait);
            }
            List<Integer> imms = new ArrayList<>();
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                imms.add(success(p.b.immRecv(), wait).immediate());
                expected.add(round * 100 + i);
            }
            // two queue pairs: arrival order is not issue order across them
            assertThat(imms).containsExactlyInAnyOrderElementsOf(expected);
            for (int i = 0; i < 32; i++) {
                success(sends.get(i), wait);
                assertThat(success(recvs.get(i), wait).byteCount()).isEqualTo(100);
            }
        }
    }

    // ------------------------------------------------------------------ seed 001 acceptance

    @Test
    void noFutureOrOpStateReferencesPooledSlotState() {
        for (Class<?> c : List.of(TransferFuture.class, OpState.class, OpState.Result.class, ImmFence.class,
                OpSignal.class)) {
            for (Field f : c.getDeclaredFields()) {
                assertThat(List.of(Slot.class, Slot[].class, SlotPool.class)).as("type of %s.%s", c.getSimpleName(),
                        f.getName()).doesNotContain(f.getType());
            }
        }
    }
}
