package io.slime4j.shm;

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
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Progress on the calling threads: a posting thread publishes its request into the ring itself
 * (no hand-off to the device's agent), and while a waiter busy-polls a completion queue of a
 * busy-polling device it drives the device and the agent stays off the core.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProgressOnCallingThreadsTest {

    @Test
    void postSendPublishesIntoTheRingBeforeItReturnsWhileTheAgentSleeps() throws Exception {
        try (Arena arena = Arena.ofShared();
             ShmDevice a = ShmDevice.open(ShmConfig.builder().name("publish-a").spin(Duration.ZERO)
                     .maxSleep(Duration.ofSeconds(1)).build());
             ShmDevice b = ShmDevice.open(ShmConfig.builder().name("publish-b").build())) {
            ProtectionDomain pdA = a.allocateProtectionDomain();
            ProtectionDomain pdB = b.allocateProtectionDomain();
            MemoryRegion src = pdA.register(arena.allocate(4096, 64), AccessFlags.ALL);
            MemoryRegion dst = pdB.register(arena.allocate(4096, 64), AccessFlags.ALL);
            CompletionQueue scq = a.createCompletionQueue(16);
            QueuePair qa = a.createQueuePair(pdA, QpConfig.defaults(), scq, a.createCompletionQueue(16));
            QueuePair qb = b.createQueuePair(pdB, QpConfig.defaults(), b.createCompletionQueue(16),
                    b.createCompletionQueue(16));
            qa.connect(qb.localInfo());
            qb.connect(qa.localInfo());
            RemoteRegion remote = RemoteRegion.of(dst);
            WorkRequest wr = new WorkRequest();
            WorkCompletion[] wcs = WorkCompletion.array(1);
            // the first write attaches the peer (done by the agent); its completion proves it
            qa.postSend(wr.clear().wrId(1).opcode(Opcode.RDMA_WRITE).remote(remote, 0).sge(src, 0, 64));
            assertThat(scq.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
            Thread.sleep(100); // the agent (no spin) is asleep on its doorbell now

            src.segment().set(ValueLayout.JAVA_LONG, 64, 0x5EED_0F_AB1EL);
            qa.postSend(wr.clear().wrId(2).opcode(Opcode.RDMA_WRITE).remote(remote, 64).sge(src, 64, 8));
            long tail = Layout.getAcquire(((ShmQueuePair) qa).file.segment, Layout.QP_TAIL);

            assertThat(tail).as("requests in the ring when postSend returned").isEqualTo(2);
            assertThat(scq.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(wcs[0].wrId()).isEqualTo(2);
            assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(dst.segment().get(ValueLayout.JAVA_LONG, 64)).isEqualTo(0x5EED_0F_AB1EL);
        }
    }

    @Test
    void whileAWaiterBusyPollsTheAgentStaysOffTheCore() throws Exception {
        try (ShmDevice a = ShmDevice.open(ShmConfig.builder().name("quiet-a").busyPoll(true).build())) {
            CompletionQueue cq = a.createCompletionQueue(16);
            Thread agent = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("slime4j-shm-quiet-a")).findFirst().orElseThrow();

            double aloneParked = parkedShare(agent);

            CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
                try {
                    return cq.awaitReady(1500, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(200); // the waiter is spinning
            double withWaiterParked = parkedShare(agent);

            assertThat(waited.get(10, TimeUnit.SECONDS)).as("nothing ever completes").isFalse();
            assertThat(aloneParked).as("share of samples the busy-polling agent alone was parked").isLessThan(0.2);
            assertThat(withWaiterParked).as("share of samples the agent was parked while a waiter spun")
                    .isGreaterThan(0.5);
        }
    }

    @Test
    void theAgentLooksInLessOftenTheLongerAWaiterKeepsDriving() throws Exception {
        try (ShmDevice a = ShmDevice.open(ShmConfig.builder().name("look-in-a").busyPoll(true).build())) {
            CompletionQueue cq = a.createCompletionQueue(16);
            CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
                try {
                    return cq.awaitReady(1200, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(200); // the waiter is spinning, the agent parked
            long before = a.quietParks();
            long nanosBefore = a.quietParkNanos();
            long start = System.nanoTime();
            Thread.sleep(500);
            long parks = a.quietParks() - before;
            long asked = a.quietParkNanos() - nanosBefore;
            long elapsedMicros = (System.nanoTime() - start) / 1000;

            assertThat(waited.get(10, TimeUnit.SECONDS)).as("nothing ever completes").isFalse();
            assertThat(parks).as("the agent's looks in %d µs while a waiter drove", elapsedMicros)
                    .isGreaterThan(0) // it still looks in (the timers)
                    .isLessThanOrEqualTo(elapsedMicros / 200 + 10); // parks of up to 200 µs (of 50 µs each: about 3,500 on the 2-core VM)
            // what the parks asked for does not depend on how late the timer woke the agent (load)
            assertThat(asked / parks).as("the mean park asked for, ns").isGreaterThanOrEqualTo(150_000);
        }
    }

    @Test
    void aLookingInAgentDoesNotWaitForTheLockADrivingWaiterHolds() throws Exception {
        try (ShmDevice a = ShmDevice.open(ShmConfig.builder().name("look-lock-a").busyPoll(true).build())) {
            ProgressRight right = a.progressRight();
            a.spinning(1); // a waiter drives: it holds the right through most of each of its turns
            try {
                Thread.sleep(20);
                long waitsBefore = a.lockWaits();
                long parksBefore = a.quietParks();
                long end = System.nanoTime() + 300_000_000L;
                while (System.nanoTime() < end) {
                    right.acquire();
                    try {
                        Thread.sleep(1);
                    } finally {
                        right.release();
                    }
                    Thread.onSpinWait(); // the next turn takes the right again at once
                }
                long waits = a.lockWaits() - waitsBefore;
                long looks = a.quietParks() - parksBefore;
                assertThat(looks).as("the agent's looks while the waiter drove").isGreaterThan(20);
                // without the skip, nearly every look finds the right held and waits for it
                assertThat(waits).as("looks (%d) that waited for the right", looks)
                        .isLessThanOrEqualTo(looks / ShmDevice.MAX_MISSED_LOOKS + 2);
            } finally {
                a.spinning(-1);
            }
        }
    }

    @Test
    void aWaiterDrivesTheDeviceForTheSpinBeforeItParks() throws Exception {
        try (ShmDevice spins = ShmDevice.open(ShmConfig.builder().name("waiter-spins").spin(Duration.ofSeconds(1)).build());
             ShmDevice parks = ShmDevice.open(ShmConfig.builder().name("waiter-parks").spin(Duration.ZERO).build())) {
            assertThat(runningShareOfAWaiter(spins)).as("a waiter within the device's spin runs").isGreaterThan(0.8);
            assertThat(runningShareOfAWaiter(parks)).as("a waiter of a device that does not spin parks")
                    .isLessThan(0.2);
        }
    }

    /** The share of samples over about 200 ms in which a thread waiting 400 ms on an empty queue of {@code d} ran. */
    private static double runningShareOfAWaiter(ShmDevice d) throws Exception {
        CompletionQueue cq = d.createCompletionQueue(16);
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
            waiter.set(Thread.currentThread());
            started.countDown();
            try {
                return cq.awaitReady(400, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).as("the waiter started").isTrue();
        Thread.sleep(50);
        int running = 0;
        for (int i = 0; i < 100; i++) {
            if (waiter.get().getState() == Thread.State.RUNNABLE) {
                running++;
            }
            Thread.sleep(2);
        }
        assertThat(waited.get(10, TimeUnit.SECONDS)).as("nothing ever completes").isFalse();
        return running / 100.0;
    }

    /** The share of 200 samples over about 400 ms in which {@code t} was parked (not running or runnable). */
    private static double parkedShare(Thread t) throws InterruptedException {
        int parked = 0;
        for (int i = 0; i < 200; i++) {
            if (t.getState() == Thread.State.TIMED_WAITING || t.getState() == Thread.State.WAITING) {
                parked++;
            }
            Thread.sleep(2);
        }
        return parked / 200.0;
    }
}
