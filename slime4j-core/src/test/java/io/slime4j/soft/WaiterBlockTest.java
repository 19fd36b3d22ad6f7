package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The place where one waiter of a default device blocks on its sockets: one holder at a time, a
 * block that does not begin when its condition holds, a wake that ends a block under way (and
 * costs nothing when none is), and a close that wakes the holder and leaves later blocks parking.
 * Over an epoll set holding only its eventfd (no sockets: arrivals are the device tests' part);
 * the spin before a wait's first block over a scripted wait and clock.
 */
@Timeout(30)
class WaiterBlockTest {
    private static final long LONG = TimeUnit.SECONDS.toNanos(20);

    @Test
    void oneThreadHoldsThePlaceAtATime() throws Exception {
        try (WaiterBlock block = new WaiterBlock(new EpollWait(new int[0]))) {
            assertThat(block.tryEnter()).isTrue();
            assertThat(block.occupied()).isTrue();
            assertThat(CompletableFuture.supplyAsync(block::tryEnter).get(5, TimeUnit.SECONDS)).isFalse();
            block.leave();
            assertThat(block.occupied()).isFalse();
            assertThat(CompletableFuture.supplyAsync(() -> {
                boolean in = block.tryEnter();
                block.leave();
                return in;
            }).get(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aBlockWhoseConditionHoldsReturnsAtOnceAndAWakeWithNoBlockIsNotKeptForTheNext() throws Exception {
        try (WaiterBlock block = new WaiterBlock(new EpollWait(new int[0]))) {
            long t0 = System.nanoTime();
            block.block(LONG, () -> true, LONG, LONG, () -> true);
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));

            block.wake(); // nobody blocked: no system call, and nothing left to end the next block early
            t0 = System.nanoTime();
            block.block(LONG, () -> false, LONG, TimeUnit.MILLISECONDS.toNanos(50), () -> false); // busy: the short bound
            assertThat(System.nanoTime() - t0).as("the block ran its timeout")
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(45));
        }
    }

    @Test
    void aNudgeBeforeABlockEndsItAtOnceAndOnlyThatOne() {
        try (WaiterBlock block = new WaiterBlock(new EpollWait(new int[0]))) {
            block.nudge(); // a command queued between the holder's cycle and its block: not lost
            long t0 = System.nanoTime();
            block.block(LONG, () -> true, LONG, LONG, () -> false);
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
            t0 = System.nanoTime();
            block.block(LONG, () -> false, LONG, TimeUnit.MILLISECONDS.toNanos(50), () -> false);
            assertThat(System.nanoTime() - t0).as("consumed: the next block runs its timeout")
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(45));
        }
    }

    @Test
    void closingIsNotHeldUpByAHolderThatKeepsBlockingInALoop() throws Exception {
        WaiterBlock block = new WaiterBlock(new EpollWait(new int[0]));
        assertThat(block.tryEnter()).isTrue();
        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            while (!stop.get()) { // a drive whose completion never comes, as on a device closing under it
                block.block(LONG, () -> true, LONG, 1_000, () -> false);
            }
        });
        awaitBlocked(block);
        long t0 = System.nanoTime();
        block.close();
        assertThat(System.nanoTime() - t0).as("close waited for the looping holder")
                .isLessThan(TimeUnit.MILLISECONDS.toNanos(500));
        stop.set(true);
        holder.get(5, TimeUnit.SECONDS);
    }

    @Test
    void anInterruptedThreadDoesNotBlockAndItsInterruptIsKept() {
        try (WaiterBlock block = new WaiterBlock(new EpollWait(new int[0]))) {
            Thread.currentThread().interrupt();
            long t0 = System.nanoTime();
            block.block(LONG, () -> true, LONG, LONG, () -> false);
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
            assertThat(Thread.interrupted()).as("the interrupt is left for the caller").isTrue();
        }
    }

    @Test
    void aLeavingHolderLearnsWhetherOthersWaitOutside() throws Exception {
        try (WaiterBlock block = new WaiterBlock(new EpollWait(new int[0]))) {
            assertThat(block.tryEnter()).isTrue();
            assertThat(block.leave()).as("nobody outside").isFalse();
            assertThat(block.tryEnter()).isTrue();
            block.waitingOutside();
            assertThat(block.leave()).as("one waits outside").isTrue();
            block.stopWaitingOutside();
            assertThat(block.tryEnter()).isTrue();
            assertThat(block.leave()).isFalse();
        }
    }

    @Test
    void aWakeEndsABlockUnderWayAndTheBlockSaysHowLongItMeantToWait() throws Exception {
        try (WaiterBlock block = new WaiterBlock(new EpollWait(new int[0]))) {
            AtomicBoolean ready = new AtomicBoolean();
            CompletableFuture<Long> blocked = CompletableFuture.supplyAsync(() -> {
                long t0 = System.nanoTime();
                block.block(LONG, () -> true, LONG, 1_000, ready::get); // quiet: the long bound
                return System.nanoTime() - t0;
            });
            awaitBlocked(block);
            assertThat(block.blockedLong()).isTrue();

            ready.set(true);
            block.wake();

            assertThat(blocked.get(5, TimeUnit.SECONDS)).isLessThan(TimeUnit.SECONDS.toNanos(5));
            assertThat(block.blockedLong()).isFalse();
        }
    }

    @Test
    void closingWakesABlockedThreadAndLaterBlocksParkWithoutTheEpollSet() throws Exception {
        WaiterBlock block = new WaiterBlock(new EpollWait(new int[0]));
        assertThat(block.tryEnter()).isTrue();
        CompletableFuture<Long> blocked = CompletableFuture.supplyAsync(() -> {
            long t0 = System.nanoTime();
            block.block(LONG, () -> true, LONG, 1_000, () -> false);
            return System.nanoTime() - t0;
        });
        awaitBlocked(block);

        block.close();

        assertThat(blocked.get(5, TimeUnit.SECONDS)).isLessThan(TimeUnit.SECONDS.toNanos(5));
        long t0 = System.nanoTime();
        block.block(LONG, () -> true, LONG, 1_000, () -> false); // closed: a short park, never the closed descriptors
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
        block.leave();
        assertThat(block.tryEnter()).as("no thread enters a closed block").isFalse();
    }

    /** Each readiness poll of the spin takes this long on the scripted clock. */
    private static final long POLL = 1_000;

    /**
     * A wait whose readiness is scripted: its poll number {@code readyAt} (from 1) finds something,
     * the others nothing, and each advances the test's clock by {@link #POLL}; blocks are recorded
     * with their timeouts, and return at once, ended by something readable if {@code blockWakes}
     * (else timed out).
     */
    private static final class ScriptedWait extends IdleWait {
        long now;
        int polls;
        int readyAt = -1;
        boolean blockWakes = true;
        Runnable onPoll = () -> { };
        final List<Long> blocks = new ArrayList<>();

        @Override
        boolean readyNow() {
            polls++;
            now += POLL;
            onPoll.run();
            return polls == readyAt;
        }

        @Override
        boolean await(long timeoutNanos) {
            blocks.add(timeoutNanos);
            return blockWakes;
        }

        @Override
        void wake() {
        }

        @Override
        boolean wakesOnArrival() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aDatagramThatComesWithinTheSpinEndsTheWaitWithoutABlockAndTheWaiterCameFirst() {
        ScriptedWait wait = new ScriptedWait();
        wait.readyAt = 4;
        CounterSet counters = new CounterSet();
        try (WaiterBlock block = new WaiterBlock(wait, 10 * POLL, () -> wait.now, counters)) {
            assertThat(block.tryEnter()).isTrue();
            block.block(LONG, () -> false, LONG, 50 * POLL, () -> false);

            assertThat(wait.polls).isEqualTo(4);
            assertThat(wait.blocks).as("no block: the next cycle takes the datagram").isEmpty();
            assertThat(block.blockedSinceEnter()).as("it polled before the datagram came: a round trip's wait").isTrue();
            assertThat(counters.get(SoftCounter.WAITER_SPIN_HITS)).isEqualTo(1);
            assertThat(counters.get(SoftCounter.WAITER_BLOCKS)).isZero();
        }
    }

    @Test
    void aDatagramThereAtTheFirstPollIsAStreamsWaitNotARoundTrips() {
        ScriptedWait wait = new ScriptedWait();
        wait.readyAt = 1;
        try (WaiterBlock block = new WaiterBlock(wait, 10 * POLL, () -> wait.now, new CounterSet())) {
            assertThat(block.tryEnter()).isTrue();
            block.block(LONG, () -> false, LONG, 50 * POLL, () -> false);

            assertThat(wait.blocks).isEmpty();
            assertThat(block.blockedSinceEnter()).as("what it waits for was there: StreamDetector counts it").isFalse();
        }
    }

    @Test
    void aSpinThatFindsNothingBlocksForWhatIsLeftOfTheTimeoutAndOnlyTheFirstBlockOfAWaitSpins() {
        ScriptedWait wait = new ScriptedWait();
        CounterSet counters = new CounterSet();
        try (WaiterBlock block = new WaiterBlock(wait, 5 * POLL, () -> wait.now, counters)) {
            assertThat(block.tryEnter()).isTrue();
            block.block(LONG, () -> false, LONG, 50 * POLL, () -> false); // busy: the short bound

            assertThat(wait.polls).as("polled until the spin's time was up").isEqualTo(5);
            assertThat(wait.blocks).as("the spin's time comes off the block's").containsExactly(45 * POLL);

            block.block(LONG, () -> false, LONG, 50 * POLL, () -> false);
            assertThat(wait.polls).as("one spin a wait").isEqualTo(5);
            assertThat(wait.blocks).containsExactly(45 * POLL, 50 * POLL);
            assertThat(counters.get(SoftCounter.WAITER_SPIN_HITS)).isZero();
            assertThat(counters.get(SoftCounter.WAITER_SPIN_MISSES)).isEqualTo(1);
            assertThat(counters.get(SoftCounter.WAITER_BLOCKS)).isEqualTo(2);
        }
    }

    @Test
    void aSpinThatRunsIntoTheDeadlineEndsWithoutABlock() {
        ScriptedWait wait = new ScriptedWait();
        CounterSet counters = new CounterSet();
        try (WaiterBlock block = new WaiterBlock(wait, 10 * POLL, () -> wait.now, counters)) {
            assertThat(block.tryEnter()).isTrue();
            block.block(3 * POLL, () -> false, LONG, 50 * POLL, () -> false); // 3 µs left of the wait

            assertThat(wait.polls).as("never past the wait's deadline").isEqualTo(3);
            assertThat(wait.blocks).as("nothing left to block for").isEmpty();
            assertThat(counters.get(SoftCounter.WAITER_BLOCKS)).isZero();
        }
    }

    /**
     * A thread that waits in short slices for what does not come (ResourceWait's help, 100 µs at a
     * time) spins in the first slice only: a wait in which nothing came, neither in the spin nor in
     * the block, disarms the spin ({@link WaiterSpin}); the next block that something ends arms it
     * again, and a wait whose answer comes after the spin keeps it armed.
     */
    @Test
    void aWaitInWhichNothingCameDisarmsTheSpinUntilABlockIsEndedBySomething() {
        ScriptedWait wait = new ScriptedWait();
        wait.blockWakes = false; // nothing comes
        try (WaiterBlock block = new WaiterBlock(wait, 5 * POLL, () -> wait.now, new CounterSet())) {
            for (int slice = 0; slice < 3; slice++) {
                assertThat(block.tryEnter()).isTrue();
                block.block(100 * POLL, () -> false, LONG, 100 * POLL, () -> false);
                block.leave();
            }
            assertThat(wait.polls).as("the first slice spun, the others did not").isEqualTo(5);
            assertThat(wait.blocks).containsExactly(95 * POLL, 100 * POLL, 100 * POLL);

            wait.blockWakes = true; // a datagram ends the next block
            assertThat(block.tryEnter()).isTrue();
            block.block(100 * POLL, () -> false, LONG, 100 * POLL, () -> false);
            block.leave();
            assertThat(wait.polls).isEqualTo(5);

            for (int w = 0; w < 2; w++) { // armed again; the answers come after the spin: it stays armed
                assertThat(block.tryEnter()).isTrue();
                block.block(100 * POLL, () -> false, LONG, 100 * POLL, () -> false);
                block.leave();
            }
            assertThat(wait.polls).isEqualTo(15);
        }
    }

    /**
     * A spin within the idle park asks for no wake when a cycle elsewhere arms a timer (it ends within
     * the park); one longer than the park does. A spin that runs out reads the device's state again:
     * a device that turned busy during the spin gets the short bound, less what the spin took.
     */
    @Test
    void aSpinAsksForAWakeOnlyPastTheIdleParkAndTheBlockAfterItReadsTheDevicesStateAgain() {
        ScriptedWait wait = new ScriptedWait();
        AtomicBoolean quiet = new AtomicBoolean(true);
        List<Boolean> longDuringSpin = new ArrayList<>();
        try (WaiterBlock block = new WaiterBlock(wait, 10 * POLL, () -> wait.now, new CounterSet())) {
            wait.onPoll = () -> {
                longDuringSpin.add(block.blockedLong());
                quiet.set(false); // a post elsewhere armed a timer
            };
            assertThat(block.tryEnter()).isTrue();
            block.block(LONG, quiet::get, 1_000 * POLL, 50 * POLL, () -> false);
            assertThat(longDuringSpin).as("a 10 µs spin within the 50 µs park").containsOnly(false);
            assertThat(wait.blocks).as("busy now: the park, less the spin").containsExactly(40 * POLL);
            block.leave();

            longDuringSpin.clear();
            quiet.set(true);
            assertThat(block.tryEnter()).isTrue();
            block.block(LONG, quiet::get, 1_000 * POLL, 5 * POLL, () -> false); // a park shorter than the spin
            assertThat(longDuringSpin).as("a spin past the park").contains(true);
        }
    }

    /**
     * Over a real epoll set: a wake, a nudge and a close from another thread each end a spin under way
     * (the spin here would last 20 s: the eventfd they write is what ends it), and no block follows.
     */
    @Test
    void aWakeANudgeOrACloseFromAnotherThreadEndsASpinUnderWay() throws Exception {
        for (String what : List.of("wake", "nudge", "close")) {
            WaiterBlock block = new WaiterBlock(new EpollWait(new int[0]), LONG, System::nanoTime, new CounterSet());
            try {
                assertThat(block.tryEnter()).isTrue();
                CompletableFuture<Long> spinning = CompletableFuture.supplyAsync(() -> {
                    long t0 = System.nanoTime();
                    block.block(LONG, () -> true, LONG, 1_000, () -> false); // quiet, a spin past the idle park
                    return System.nanoTime() - t0;
                });
                awaitBlocked(block); // announced (a long spin asks for a wake when the device turns busy): in the spin
                long t0 = System.nanoTime();
                switch (what) {
                    case "wake" -> block.wake();
                    case "nudge" -> block.nudge();
                    default -> block.close();
                }
                assertThat(spinning.get(10, TimeUnit.SECONDS)).as("%s ended the spin", what)
                        .isLessThan(TimeUnit.SECONDS.toNanos(10));
                assertThat(System.nanoTime() - t0).as("%s returned", what).isLessThan(TimeUnit.SECONDS.toNanos(5));
            } finally {
                block.close();
            }
        }
    }

    @Test
    void anInterruptEndsTheSpinAndIsKept() {
        ScriptedWait wait = new ScriptedWait();
        wait.onPoll = () -> {
            if (wait.polls == 2) {
                Thread.currentThread().interrupt();
            }
        };
        CounterSet counters = new CounterSet();
        try (WaiterBlock block = new WaiterBlock(wait, 100 * POLL, () -> wait.now, counters)) {
            assertThat(block.tryEnter()).isTrue();
            block.block(LONG, () -> false, LONG, 50 * POLL, () -> false);

            assertThat(wait.polls).isEqualTo(2);
            assertThat(wait.blocks).isEmpty();
            assertThat(counters.get(SoftCounter.WAITER_SPIN_HITS)).as("not a hit").isZero();
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is left for the caller").isTrue();
        } finally {
            Thread.interrupted(); // not left to the next test
        }
    }

    @Test
    void withNoSpinTheWaiterBlocksAtOnceAndAWaitThatIsReadyNeitherSpinsNorBlocks() {
        ScriptedWait wait = new ScriptedWait();
        try (WaiterBlock block = new WaiterBlock(wait, 0, () -> wait.now, new CounterSet())) {
            assertThat(block.tryEnter()).isTrue();
            block.block(LONG, () -> false, LONG, 50 * POLL, () -> false);
            assertThat(wait.polls).isZero();
            assertThat(wait.blocks).containsExactly(50 * POLL);
        }
        ScriptedWait ready = new ScriptedWait();
        try (WaiterBlock block = new WaiterBlock(ready, 10 * POLL, () -> ready.now, new CounterSet())) {
            assertThat(block.tryEnter()).isTrue();
            block.block(LONG, () -> false, LONG, 50 * POLL, () -> true);
            assertThat(ready.polls).isZero();
            assertThat(ready.blocks).isEmpty();
        }
    }

    private static void awaitBlocked(WaiterBlock block) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!block.blockedLong() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(block.blockedLong()).as("the thread blocked").isTrue();
        Thread.sleep(20); // and is inside epoll_pwait2 by now, most likely; a wake before that is kept by the eventfd
    }
}
