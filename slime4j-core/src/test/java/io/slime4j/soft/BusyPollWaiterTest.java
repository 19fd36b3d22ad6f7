package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On a busy-polling device the thread that waits for a completion drives the device itself
 * ({@link DutyCycle}), and the device's agent stands aside meanwhile: one spinning thread per
 * process, not two. On a default device the waiter drives it too, blocking on the device's
 * sockets between cycles ({@link WaiterBlock}); with {@code blockingWaiters(false)} the waiter
 * parks and the agent does all the work.
 */
@Timeout(60)
class BusyPollWaiterTest {
    private static final int WRITES = 2_000;

    private record Side(SoftDevice device, CompletionQueue cq, QueuePair qp, MemoryRegion mr, MemorySegment mem) {
        static Side open(UdpWire wire, Arena arena, boolean busy) {
            return open(wire, arena, SoftConfig.builder().busySpin(busy).build());
        }

        static Side open(UdpWire wire, Arena arena, SoftConfig config) {
            SoftDevice d = SoftDevice.open(wire, "udp:127.0.0.1:0", config);
            ProtectionDomain pd = d.allocateProtectionDomain();
            CompletionQueue cq = d.createCompletionQueue(64);
            QueuePair qp = d.createQueuePair(pd, QpConfig.builder().build(), cq, cq);
            MemorySegment mem = arena.allocate(4096, 4096);
            return new Side(d, cq, qp, pd.register(mem, AccessFlags.ALL), mem);
        }

        void write(Side peer, int i) throws InterruptedException {
            mem.set(ValueLayout.JAVA_INT, 0, i);
            qp.postSend(new WorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE).sge(mr, 0, 64)
                    .remote(RemoteRegion.of(peer.mr), 0));
            WorkCompletion[] wcs = WorkCompletion.array(1);
            assertThat(cq.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wcs[0].wrId()).isEqualTo(i);
        }
    }

    /**
     * {@link #WRITES} writes from a to b, each waited for on the writing thread: the wall time, the
     * CPU of a's agent and of the writing thread. Checks that the last write landed and that the
     * writing thread ran a cycle for each (it drove a's device).
     */
    private record WriteRun(long wall, long agentCpu, long waiterCpu) {
        static WriteRun of(Side a, Side b) throws InterruptedException {
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long agent = a.device.agentThread().threadId();
            long agentBefore = mx.getThreadCpuTime(agent);
            long waiterBefore = mx.getCurrentThreadCpuTime();
            long waiterCyclesBefore = a.device.duty().byWaiters();
            long t0 = System.nanoTime();
            for (int i = 1; i <= WRITES; i++) {
                a.write(b, i);
            }
            long wall = System.nanoTime() - t0;
            WriteRun run = new WriteRun(wall, mx.getThreadCpuTime(agent) - agentBefore,
                    mx.getCurrentThreadCpuTime() - waiterBefore);
            assertThat(b.mem.get(ValueLayout.JAVA_INT, 0)).as("the last write landed").isEqualTo(WRITES);
            assertThat(a.device.duty().byWaiters() - waiterCyclesBefore).as("cycles the waiter ran")
                    .isGreaterThanOrEqualTo(WRITES);
            return run;
        }
    }

    /** What a test does with a connected pair. */
    private interface PairBody {
        void run(Side a, Side b) throws Exception;
    }

    /** Opens side a (busy-polling if {@code busyA}) and a default side b on UDP loopback, connected, runs {@code body}, closes both. */
    private static void withPair(boolean busyA, PairBody body) throws Exception {
        withPair(SoftConfig.builder().busySpin(busyA).build(), body);
    }

    /** As above, side a opened with {@code configA}. */
    private static void withPair(SoftConfig configA, PairBody body) throws Exception {
        try (UdpWire wire = new UdpWire(); Arena arena = Arena.ofShared()) {
            Side a = Side.open(wire, arena, configA);
            Side b = Side.open(wire, arena, false);
            try {
                a.qp.connect(b.qp.localInfo());
                b.qp.connect(a.qp.localInfo());
                body.run(a, b);
            } finally {
                a.device.close();
                b.device.close();
            }
        }
    }

    /**
     * A busy-polling device's queue says that its waiters drive it and that a post may complete
     * (its posting thread runs a cycle, which takes ACKs in). A default device's whose waiters block
     * on its sockets says that its waiters drive it, but not that a post completes (a post's cycle
     * there only sends); one whose waiters do not says neither.
     */
    @Test
    void theQueueSaysWhetherItsWaitersDriveTheDeviceAndAPostMayComplete() throws Exception {
        withPair(true, (a, b) -> {
            assertThat(a.cq.drivenByWaiters()).isTrue();
            assertThat(a.cq.completesOnPost()).isTrue();
            assertThat(b.device.waiterBlock()).as("a default device on native sockets").isNotNull();
            assertThat(b.cq.drivenByWaiters()).isTrue();
            assertThat(b.cq.completesOnPost()).isFalse();
        });
        withPair(SoftConfig.builder().blockingWaiters(false).build(), (a, b) -> {
            assertThat(a.device.waiterBlock()).isNull();
            assertThat(a.cq.drivenByWaiters()).isFalse();
            assertThat(a.cq.completesOnPost()).isFalse();
        });
    }

    @Test
    void theWaiterDrivesABusyPollingDeviceAndItsAgentStandsAside() throws Exception {
        withPair(true, (a, b) -> {
            WriteRun run = WriteRun.of(a, b);
            long wall = run.wall;
            long agentCpu = run.agentCpu;
            long waiterCpu = run.waiterCpu;
            // the agent rests while the waiter drives (a spinning one would use the whole wall time): it
            // looks again every 50 µs and runs a cycle only between a completion and the next wait
            assertThat(agentCpu).as("agent CPU %d µs, waiter CPU %d µs, wall %d µs", agentCpu / 1000,
                    waiterCpu / 1000, wall / 1000).isLessThan(wall / 5);
        });
    }

    @Test
    void aWriteFromAThreadThatIsNotWaitingLeavesBeforeItsPostReturns() throws Exception {
        withPair(true, (a, b) -> {
            for (int i = 1; i <= 200; i++) {
                a.write(b, i); // the waiter drives: the agent rests
            }
            SoftCounters counters = SoftCounters.of(a.device);
            WorkCompletion[] wcs = WorkCompletion.array(1);
            int leftInPost = 0;
            for (int i = 0; i < 50; i++) {
                long before = counters.get(SoftCounter.DATAGRAMS_SENT);
                a.qp.postSend(new WorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE).sge(a.mr, 0, 64)
                        .remote(RemoteRegion.of(b.mr), 0));
                // counted at the end of the cycle that sent it: the poster's own, before postSend returns
                if (counters.get(SoftCounter.DATAGRAMS_SENT) > before) {
                    leftInPost++;
                }
                assertThat(a.cq.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
                assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
            }
            // the posting thread ran the cycle itself (it could not when the agent's own look held it)
            assertThat(leftInPost).as("posts whose datagram left before postSend returned").isGreaterThanOrEqualTo(45);
        });
    }

    @Test
    void aPassiveWaiterSleepsUntilTheAgentPushesACompletionAndRunsNoCycle() throws Exception {
        withPair(true, (a, b) -> {
            long byWaiters = a.device.duty().byWaiters();
            a.qp.postSend(new WorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(a.mr, 0, 64)
                    .remote(RemoteRegion.of(b.mr), 0));

            assertThat(a.cq.awaitReadyPassively(10, TimeUnit.SECONDS)).isTrue();

            assertThat(a.device.duty().byWaiters()).as("cycles run by the passive waiter").isEqualTo(byWaiters);
            WorkCompletion[] wcs = WorkCompletion.array(1);
            assertThat(a.cq.poll(wcs)).isEqualTo(1);
            assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
        });
    }

    @Test
    void aCompletionWakesTheActiveWaiterAndNotThePassiveOneWhichALaterPushWakes() throws Exception {
        for (boolean busy : new boolean[] {false, true}) {
            withPair(busy, (a, b) -> {
                java.util.concurrent.CompletableFuture<Boolean> passive = new java.util.concurrent.CompletableFuture<>();
                Thread p = Thread.ofPlatform().start(() -> {
                    try {
                        passive.complete(a.cq.awaitReadyPassively(20, TimeUnit.SECONDS));
                    } catch (InterruptedException e) {
                        passive.completeExceptionally(e);
                    }
                });
                java.util.concurrent.CompletableFuture<Boolean> active = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return a.cq.awaitReady(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                Thread.sleep(100); // both wait
                a.qp.postSend(new WorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).sge(a.mr, 0, 64)
                        .remote(RemoteRegion.of(b.mr), 0));
                assertThat(active.get(10, TimeUnit.SECONDS)).as("busy %s: the active waiter woke", busy).isTrue();
                Thread.sleep(200);
                assertThat(passive).as("busy %s: the passive waiter sleeps on", busy).isNotDone();

                a.qp.postSend(new WorkRequest().wrId(2).opcode(Opcode.RDMA_WRITE).sge(a.mr, 0, 64)
                        .remote(RemoteRegion.of(b.mr), 0));

                assertThat(passive.get(10, TimeUnit.SECONDS)).as("busy %s: a push with no active waiter wakes it", busy)
                        .isTrue();
                p.join(5_000);
                WorkCompletion[] wcs = WorkCompletion.array(2);
                int n = a.cq.poll(wcs);
                while (n < 2) {
                    assertThat(a.cq.awaitReady(10, TimeUnit.SECONDS)).isTrue();
                    n += a.cq.poll(WorkCompletion.array(1));
                }
            });
        }
    }

    /**
     * A default device's waiter runs the cycles and blocks on the sockets between them: the
     * datagram that completes its wait wakes it, and the agent stands aside meanwhile (it rests,
     * looking again at most every millisecond, instead of being woken by every datagram too). With
     * a 10 ms idle park, a waiter that only its timeout woke would take at least 10 ms a write.
     */
    @Test
    void aDefaultDevicesWaiterBlocksOnTheSocketsAndRunsTheCyclesWhileItsAgentRests() throws Exception {
        // no spin first: every wait blocks on the sockets (the spin has a test of its own, below)
        withPair(SoftConfig.builder().maxIdlePark(java.time.Duration.ofMillis(10)).waiterSpin(java.time.Duration.ZERO)
                .build(), (a, b) -> {
            for (int i = 1; i <= 200; i++) {
                a.write(b, i); // warm: the agent goes from blocking on the sockets to resting
            }
            WriteRun run = WriteRun.of(a, b);
            long wall = run.wall;
            long agentCpu = run.agentCpu;
            assertThat(a.device.waiterBlock().occupied()).as("the place is given back").isFalse();
            assertThat(agentCpu).as("agent CPU %d µs, wall %d µs", agentCpu / 1000, wall / 1000)
                    .isLessThan(wall / 5);
            assertThat(wall / WRITES).as("ns a write: the datagrams woke the waiter, not its 10 ms timeout")
                    .isLessThan(TimeUnit.MILLISECONDS.toNanos(3));
        });
    }

    /**
     * A default device's waiter spins before it blocks ({@link SoftConfig#waiterSpin}): with a spin
     * longer than the peer takes to answer, the waits of a run of writes end in the spin (counted as
     * {@link SoftCounter#WAITER_SPIN_HITS}) and hardly any blocks; with none, every wait blocks. Both
     * sides on UDP loopback, the peer's agent answering.
     */
    @Test
    void aDefaultWaitersSpinTakesInTheAnswerThatComesWithinItWithoutABlock() throws Exception {
        for (java.time.Duration spin : java.util.List.of(java.time.Duration.ofMillis(10), java.time.Duration.ZERO)) {
            // a 10 ms idle park: a block's timeout, which also bounds the spin, is then 10 ms too
            withPair(SoftConfig.builder().maxIdlePark(java.time.Duration.ofMillis(10)).waiterSpin(spin).build(), (a, b) -> {
                for (int i = 1; i <= 200; i++) {
                    a.write(b, i); // warm: the agent goes from blocking on the sockets to resting
                }
                SoftCounters counters = SoftCounters.of(a.device);
                long hits = counters.get(SoftCounter.WAITER_SPIN_HITS);
                long blocks = counters.get(SoftCounter.WAITER_BLOCKS);
                WriteRun.of(a, b); // each write waited for by this thread, which drives a's device
                hits = counters.get(SoftCounter.WAITER_SPIN_HITS) - hits;
                blocks = counters.get(SoftCounter.WAITER_BLOCKS) - blocks;
                if (spin.isZero()) {
                    assertThat(hits).as("spin hits without a spin").isZero();
                    assertThat(blocks).as("blocks of %d waits", WRITES).isGreaterThanOrEqualTo(WRITES / 2);
                } else {
                    assertThat(hits).as("waits that the %s spin ended", spin).isGreaterThanOrEqualTo(WRITES / 2);
                    assertThat(blocks).as("blocks after a spin that found nothing in 10 ms").isLessThan(WRITES / 20);
                }
            });
        }
    }

    /**
     * While one thread blocks on a default device's sockets for a completion that has not come, a
     * write posted by another thread leaves at once (the poster runs the cycle: the agent stands
     * aside and skips the device), and its completion, pushed by that poster's or a later cycle,
     * ends the block.
     */
    @Test
    void aPostFromAnotherThreadLeavesWhileAWaiterBlocksAndItsCompletionEndsTheBlock() throws Exception {
        withPair(false, (a, b) -> {
            for (int i = 1; i <= 50; i++) {
                a.write(b, i);
            }
            java.util.concurrent.CompletableFuture<Boolean> waited = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return a.cq.awaitReady(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!a.device.waiterBlock().occupied() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(a.device.waiterBlock().occupied()).as("a waiter holds the place").isTrue();
            Thread.sleep(50); // it blocks on the sockets: nothing is on its way
            assertThat(waited).isNotDone();

            a.mem.set(ValueLayout.JAVA_INT, 0, 4242);
            SoftCounters counters = SoftCounters.of(a.device);
            long sentBefore = counters.get(SoftCounter.DATAGRAMS_SENT);
            a.qp.postSend(new WorkRequest().wrId(77).opcode(Opcode.RDMA_WRITE).sge(a.mr, 0, 64)
                    .remote(RemoteRegion.of(b.mr), 0));
            // counted at the end of the cycle that sent it: the poster's own, before postSend returns
            assertThat(counters.get(SoftCounter.DATAGRAMS_SENT)).as("the write left before postSend returned")
                    .isGreaterThan(sentBefore);

            assertThat(waited.get(10, TimeUnit.SECONDS)).as("the completion ended the block").isTrue();
            WorkCompletion[] wcs = WorkCompletion.array(1);
            assertThat(a.cq.poll(wcs)).isEqualTo(1);
            assertThat(wcs[0].wrId()).isEqualTo(77);
            assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(b.mem.get(ValueLayout.JAVA_INT, 0)).isEqualTo(4242);
        });
    }

    /**
     * A receiver whose waiter took a message in and then stops waiting still acknowledges it soon:
     * the ACK the sender asked for waited a cycle for a reply to carry it, and the waiter, leaving
     * with it owed, has the agent send it (the agent may be blocked on the sockets for a second, and
     * the sender's 100 ms retransmit timeout would otherwise resend). Repeated, with the receiver
     * idle long enough before each message for its agent to block for long.
     */
    @Test
    void aReceiverThatStopsWaitingStillAcknowledgesAtOnce() throws Exception {
        withPair(false, (a, b) -> {
            for (int i = 1; i <= 200; i++) {
                receiveOneWhileWaitingThenStop(a, b, i, 0); // warm: the first sends of a JVM take milliseconds
            }
            // the ACK must not wait for the peer's 100 ms retransmit timeout; a tail-loss probe (1 ms floor) may
            // still resend when the receiver's agent was mid-rest as the waiter left (docs/PERFORMANCE.md, eighth round)
            long timeoutsBefore = a.device.counters().get(io.slime4j.verbs.Counter.TIMEOUTS);
            long bCyclesBefore = b.device.duty().byWaiters();
            for (int i = 201; i <= 205; i++) {
                long micros = receiveOneWhileWaitingThenStop(a, b, i, 20); // agents block on their sockets first
                assertThat(micros).as("send %d completed after %d µs", i, micros).isLessThan(50_000);
            }
            assertThat(a.device.counters().get(io.slime4j.verbs.Counter.TIMEOUTS) - timeoutsBefore)
                    .as("retransmit timeouts").isZero();
            assertThat(b.device.duty().byWaiters()).as("b's waiter drove its device").isGreaterThan(bCyclesBefore);
        });
    }

    /**
     * b waits for a message on its sockets (holding the waiter place), a sends it after b has
     * stood idle for {@code idleMillis}, b's waiter takes it in and leaves; returns the µs until
     * a's send completed (on b's ACK).
     */
    private static long receiveOneWhileWaitingThenStop(Side a, Side b, int i, int idleMillis) throws Exception {
        WorkCompletion[] wcs = WorkCompletion.array(1);
        b.qp.postRecv(new WorkRequest().wrId(100_000 + i).sge(b.mr, 0, 64));
        Thread.sleep(idleMillis);
        java.util.concurrent.CompletableFuture<Boolean> received = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return b.cq.awaitReady(10, TimeUnit.SECONDS); // drives b, then leaves with the ACK owed
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // the waiter takes the place unless it was refused it (a stream seen in the warm-up's back-to-back
        // messages; then it parks and the agent takes the message in): a bounded look either way
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        while (!b.device.waiterBlock().occupied() && !received.isDone() && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(20_000); // not a spin: two cores, four busy threads
        }
        long t0 = System.nanoTime();
        a.qp.postSend(new WorkRequest().wrId(i).opcode(Opcode.SEND).sge(a.mr, 0, 64));
        boolean got = received.get(10, TimeUnit.SECONDS);
        assertThat(got).isTrue();
        assertThat(a.cq.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
        long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0);
        assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(b.cq.poll(wcs)).isEqualTo(1);
        assertThat(wcs[0].wrId()).isEqualTo(100_000 + i);
        return micros;
    }

    /**
     * A stream of writes posted behind outstanding ones stays with the agent, which sends them
     * together while the posting thread goes on: the thread's waits park instead of driving.
     */
    @Test
    void aStreamOfPostsStaysWithTheAgent() throws Exception {
        withPair(false, (a, b) -> {
            a.write(b, 1);
            long waiterCycles = a.device.duty().byWaiters();
            int window = 16;
            int writes = 2_000;
            WorkCompletion[] wcs = WorkCompletion.array(1);
            int completed = 0;
            for (int i = 0; i < writes; i++) {
                if (i >= window) {
                    assertThat(a.cq.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
                    assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
                    completed++;
                }
                a.qp.postSend(new WorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE).sge(a.mr, 0, 4096)
                        .remote(RemoteRegion.of(b.mr), 0));
            }
            while (completed < writes) {
                assertThat(a.cq.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
                completed++;
            }
            assertThat(a.device.duty().byWaiters() - waiterCycles).as("cycles the waiting thread ran")
                    .isLessThan(writes / 20);
        });
    }

    @Test
    void aDefaultDeviceWithoutBlockingWaitersLeavesAllCyclesToItsAgent() throws Exception {
        withPair(SoftConfig.builder().blockingWaiters(false).build(), (a, b) -> {
            for (int i = 1; i <= 100; i++) {
                a.write(b, i);
            }
            assertThat(a.device.duty().byWaiters()).isZero();
            assertThat(a.device.duty().completed()).isPositive();
        });
    }
}
