package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class DutyCycleTest {
    /** A waiter's cycle exception thrown on, out of the wait. */
    static final java.util.function.Consumer<RuntimeException> RETHROW = e -> {
        throw e;
    };

    @Test
    void aCycleRunsOnOneThreadAtATimeAndAnotherThreadIsTurnedAway() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        DutyCycle duty = new DutyCycle(now -> {
            inside.countDown();
            try {
                leave.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 1;
        }, true, RETHROW);
        Thread holder = Thread.ofPlatform().start(() -> duty.tryRun());
        assertThat(inside.await(5, TimeUnit.SECONDS)).isTrue();

        assertThat(duty.tryRun()).as("held by the other thread").isEqualTo(-1);
        assertThat(duty.heldByCurrentThread()).isFalse();
        leave.countDown();
        holder.join();
        assertThat(duty.completed()).isEqualTo(1);
    }

    @Test
    void aPostThatFindsTheCycleHeldMakesTheHolderRunOneMoreWhenItGivesTheRightBack() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        AtomicInteger postCycles = new AtomicInteger();
        AtomicInteger missed = new AtomicInteger();
        DutyCycle duty = new DutyCycle(now -> {
            inside.countDown();
            try {
                leave.await(); // the holder's cycle passed the poster's queue pair already
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 0;
        }, now -> postCycles.incrementAndGet(), true, RETHROW, missed::incrementAndGet);
        Thread holder = Thread.ofPlatform().start(() -> duty.tryRun());
        assertThat(inside.await(5, TimeUnit.SECONDS)).isTrue();

        assertThat(duty.runForPoster()).as("held by the other thread").isEqualTo(-1);
        leave.countDown();
        holder.join();

        assertThat(postCycles.get()).as("one more cycle, run by the holder as it left").isEqualTo(1);
        assertThat(missed.get()).as("nothing left for the agent").isZero();
        assertThat(duty.completed()).isEqualTo(2);
        assertThat(duty.tryRun()).as("no post pending: one cycle").isZero();
        assertThat(duty.completed()).isEqualTo(3);
    }

    @Test
    void aWaiterThatFindsTheCycleHeldHasTheHolderRunOneMoreBeforeItBlocks() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        AtomicReference<Thread> postRanOn = new AtomicReference<>();
        DutyCycle duty = new DutyCycle(now -> {
            if (inside.getCount() > 0) {
                inside.countDown();
                try {
                    leave.await(5, TimeUnit.SECONDS); // the agent's cycle passed a request posted meanwhile, left to it
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 0;
        }, now -> {
            postRanOn.set(Thread.currentThread()); // the cycle that sends the request
            return 1;
        }, false, RETHROW, () -> { });
        Thread holder = Thread.ofPlatform().start(() -> duty.tryRun());
        assertThat(inside.await(5, TimeUnit.SECONDS)).isTrue();
        AtomicInteger blocks = new AtomicInteger();

        boolean ready = duty.driveUntil(() -> postRanOn.get() != null, System.nanoTime() + TimeUnit.SECONDS.toNanos(2),
                remaining -> {
                    blocks.incrementAndGet(); // a default device's waiter blocks on its sockets here
                    leave.countDown(); // the holder gives the right back meanwhile
                    try {
                        holder.join(Duration.ofSeconds(5));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });

        assertThat(ready).as("the request left while the waiter blocked").isTrue();
        assertThat(postRanOn.get()).as("one more cycle, run by the holder as it left").isSameAs(holder);
        assertThat(blocks.get()).isEqualTo(1);
    }

    @Test
    void aHeldPostRunsNoCycleAndTheNextCycleAnyoneRunsSendsItFirst() {
        AtomicInteger cycles = new AtomicInteger();
        AtomicInteger postCycles = new AtomicInteger();
        DutyCycle duty = new DutyCycle(now -> cycles.incrementAndGet(), now -> postCycles.incrementAndGet(), true,
                RETHROW, () -> { }, () -> 0L); // a clock that stands still: only the count rings

        for (int i = 1; i < HeldPosts.MAX_POSTS; i++) {
            assertThat(duty.holdForPoster()).as("held").isTrue();
        }
        assertThat(cycles.get() + postCycles.get()).as("held: no cycle ran").isZero();
        assertThat(duty.postsHeld()).as("the agent can see that posts wait").isTrue();

        assertThat(duty.tryRun()).as("the next cycle (the agent's or a waiter's) sends first").isEqualTo(1);
        assertThat(postCycles.get()).isEqualTo(1);
        assertThat(cycles.get()).isZero();
        assertThat(duty.postsHeld()).isFalse();
        assertThat(duty.tryRun()).as("then the plain cycle again").isEqualTo(1);
        assertThat(cycles.get()).isEqualTo(1);
    }

    @Test
    void aPosterThatKeepsPostingWithoutWaitingRunsTheCycleItselfAtTheLimit() {
        AtomicInteger postCycles = new AtomicInteger();
        DutyCycle duty = new DutyCycle(now -> 0, now -> postCycles.incrementAndGet(), true, RETHROW, () -> { },
                () -> 0L);

        for (int round = 1; round <= 3; round++) {
            for (int i = 1; i < HeldPosts.MAX_POSTS; i++) {
                duty.holdForPoster();
            }
            assertThat(postCycles.get()).isEqualTo(round - 1);
            assertThat(duty.holdForPoster()).as("the post that makes the limit is not held").isFalse();
            assertThat(postCycles.get()).as("round %d: the post that makes the limit ran the cycle", round)
                    .isEqualTo(round);
        }
    }

    @Test
    void aWaiterRunsCyclesItselfUntilWhatItWaitsForIsReady() throws Exception {
        AtomicInteger cycles = new AtomicInteger();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        DutyCycle duty = new DutyCycle(now -> {
            ranOn.set(Thread.currentThread());
            return cycles.incrementAndGet() >= 5 ? 1 : 0;
        }, true, RETHROW);

        boolean ready = duty.driveUntil(() -> cycles.get() >= 5, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));

        assertThat(ready).isTrue();
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(duty.completed()).isEqualTo(5);
        assertThat(duty.byWaiters()).isEqualTo(5);
        assertThat(duty.drivenByWaiter()).as("it left").isFalse();
    }

    @Test
    void aWaiterGivesUpAtItsDeadlineAndIsSeenDrivingMeanwhile() throws Exception {
        DutyCycle duty = new DutyCycle(now -> 0, true, RETHROW);
        AtomicInteger seenDriving = new AtomicInteger();
        Thread watcher = Thread.ofPlatform().start(() -> {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            while (System.nanoTime() - end < 0) {
                if (duty.drivenByWaiter()) {
                    seenDriving.incrementAndGet();
                }
            }
        });
        long t0 = System.nanoTime();
        boolean ready = duty.driveUntil(() -> false, t0 + TimeUnit.MILLISECONDS.toNanos(100));
        long took = System.nanoTime() - t0;
        watcher.join();

        assertThat(ready).isFalse();
        assertThat(took).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(seenDriving.get()).isPositive();
        assertThat(duty.completed()).isPositive();
    }

    @Test
    void waitingForCyclesCountsTheCyclesOfWhicheverThreadRunsThem() throws Exception {
        DutyCycle duty = new DutyCycle(now -> 0, true, RETHROW);
        AtomicInteger nudges = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean waited = new java.util.concurrent.atomic.AtomicBoolean();
        // a waiter of a busy-polling device runs the cycles until the wait below has seen two of them
        // (it stopped after three nudges before: a driver thread that started late then ran none)
        Thread driver = Thread.ofPlatform().start(() -> {
            try {
                duty.driveUntil(waited::get, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        boolean counted = duty.awaitCycles(2, TimeUnit.SECONDS.toNanos(5), nudges::incrementAndGet, () -> true);
        waited.set(true);
        driver.join();
        assertThat(counted).isTrue();
        assertThat(duty.completed()).isGreaterThanOrEqualTo(2);
        assertThat(duty.byWaiters()).as("the cycles were the driving waiter's").isEqualTo(duty.completed());
    }

    @Test
    void waitingForCyclesEndsAtItsBoundWhenNothingRunsThem() {
        DutyCycle duty = new DutyCycle(now -> 0, true, RETHROW);
        long t0 = System.nanoTime();
        assertThat(duty.awaitCycles(2, TimeUnit.MILLISECONDS.toNanos(50), () -> { }, () -> true)).isFalse();
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        assertThat(duty.awaitCycles(2, TimeUnit.SECONDS.toNanos(5), () -> { }, () -> false))
                .as("nothing drives the device any more: no wait").isTrue();
    }

    @Test
    void theClockOfACycleIsReadOnceItsRightIsHeldSoTimeNeverGoesBackAcrossThreads() throws Exception {
        long[] last = {Long.MIN_VALUE};
        int[] backwards = {0};
        DutyCycle duty = new DutyCycle(now -> {
            if (now < last[0]) {
                backwards[0]++;
            }
            last[0] = now;
            return 0;
        }, true, RETHROW);
        Thread other = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 200_000; i++) {
                duty.tryRun();
            }
        });
        for (int i = 0; i < 200_000; i++) {
            duty.tryRun();
        }
        other.join();
        assertThat(backwards[0]).isZero();
    }

    @Test
    void anExceptionOfAWaitersCycleGoesToTheHandlerAndTheWaiterGoesOn() throws Exception {
        AtomicInteger cycles = new AtomicInteger();
        java.util.List<RuntimeException> handled = new java.util.ArrayList<>();
        DutyCycle duty = new DutyCycle(now -> {
            if (cycles.incrementAndGet() == 2) {
                throw new IllegalStateException("cycle 2");
            }
            return 1;
        }, true, handled::add);

        assertThat(duty.driveUntil(() -> cycles.get() >= 4, System.nanoTime() + TimeUnit.SECONDS.toNanos(5))).isTrue();
        assertThat(handled).singleElement().extracting(Throwable::getMessage).isEqualTo("cycle 2");
        assertThat(duty.completed()).isEqualTo(4);
    }

    @Test
    void aWaitersCycleKnowsWhenItsWaitIsOverAndNoOtherCycleDoes() throws Exception {
        AtomicInteger cycles = new AtomicInteger();
        java.util.List<Boolean> satisfied = new java.util.ArrayList<>();
        DutyCycle[] d = new DutyCycle[1];
        d[0] = new DutyCycle(now -> {
            cycles.incrementAndGet(); // what the waiter waits for comes in this cycle, before the look
            satisfied.add(d[0].waiterSatisfied());
            return 1;
        }, true, RETHROW);
        DutyCycle duty = d[0];

        assertThat(duty.tryRun()).isEqualTo(1); // the agent's
        assertThat(duty.runForPoster()).isEqualTo(1); // a poster's
        assertThat(duty.driveUntil(() -> cycles.get() >= 4, System.nanoTime() + TimeUnit.SECONDS.toNanos(5))).isTrue();
        assertThat(duty.waiterSatisfied()).as("outside a cycle").isFalse();

        // the agent's, the poster's, then the waiter's: not yet (3 < 4), then its wait is over
        assertThat(satisfied).containsExactly(false, false, false, true);
    }

    @Test
    void aSeizedCycleRunsNoMore() throws Exception {
        AtomicInteger cycles = new AtomicInteger();
        DutyCycle duty = new DutyCycle(now -> cycles.incrementAndGet(), true, RETHROW);
        assertThat(duty.seize()).isTrue();
        int[] other = new int[1];
        Thread t = Thread.ofPlatform().start(() -> other[0] = duty.tryRun());
        t.join();
        assertThat(other[0]).isEqualTo(-1);
        assertThat(cycles.get()).isZero();
    }
}
