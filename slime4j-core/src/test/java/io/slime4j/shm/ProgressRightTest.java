package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link ProgressRight}, deterministically: work a poster leaves while the right is held is run by
 * the holder (its cycle, or one more as it lets go), never nested in the holder's own cycle, and
 * handed to the agent after a bounded number of such cycles.
 */
class ProgressRightTest {

    @Test
    void workLeftWhileTheRightIsHeldIsRunByTheHolderAsItLetsGo() throws Exception {
        AtomicInteger pendingCycles = new AtomicInteger();
        ProgressRight right = new ProgressRight(pendingCycles::incrementAndGet, () -> { });
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        AtomicInteger ranBy = new AtomicInteger();
        AtomicBoolean told = new AtomicBoolean();
        Thread holder = Thread.ofPlatform().start(() -> {
            right.acquire();
            inside.countDown();
            try {
                told.set(leave.await(5, TimeUnit.SECONDS)); // its cycle took the marks before the post below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            right.release();
            ranBy.set(pendingCycles.get());
        });
        assertThat(inside.await(5, TimeUnit.SECONDS)).isTrue();

        assertThat(right.leave()).as("held by the other thread: left to it").isFalse();
        assertThat(pendingCycles.get()).isZero();
        leave.countDown();
        assertThat(holder.join(Duration.ofSeconds(5))).as("ended").isTrue();

        assertThat(told.get()).as("the holder let go after the post").isTrue();
        assertThat(ranBy.get()).as("one more cycle, run by the holder as it let go").isEqualTo(1);
        right.acquire();
        right.release();
        assertThat(pendingCycles.get()).as("nothing pending any more").isEqualTo(1);
    }

    @Test
    void workLeftBeforeACycleTookTheMarksNeedsNoCycleMore() {
        AtomicInteger pendingCycles = new AtomicInteger();
        ProgressRight right = new ProgressRight(pendingCycles::incrementAndGet, () -> { });
        right.acquire();
        try {
            leaveFromAnotherThread(right);
            right.takingMarks(); // this cycle sees the mark the poster set
        } finally {
            right.release();
        }
        assertThat(pendingCycles.get()).isZero();
    }

    @Test
    void aHolderThatLeavesWorkRunsItAsItLetsGoNotInsideItsCycle() {
        AtomicInteger pendingCycles = new AtomicInteger();
        ProgressRight right = new ProgressRight(pendingCycles::incrementAndGet, () -> { });
        right.acquire();
        try {
            assertThat(right.leave()).as("not nested in the holder's own cycle").isFalse();
            assertThat(pendingCycles.get()).isZero();
        } finally {
            right.release();
        }
        assertThat(pendingCycles.get()).isEqualTo(1);
    }

    @Test
    void aPosterThatFindsTheRightFreeRunsTheCycleItself() {
        AtomicInteger pendingCycles = new AtomicInteger();
        ProgressRight right = new ProgressRight(pendingCycles::incrementAndGet, () -> { });

        assertThat(right.leave()).isTrue();
        assertThat(pendingCycles.get()).isEqualTo(1);
        assertThat(right.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void workLeftDuringThePendingCycleRunsAnotherOne() {
        AtomicInteger pendingCycles = new AtomicInteger();
        ProgressRight[] right = new ProgressRight[1];
        right[0] = new ProgressRight(() -> {
            if (pendingCycles.incrementAndGet() == 1) {
                leaveFromAnotherThread(right[0]); // held: left to this holder
            }
        }, () -> { });

        assertThat(right[0].leave()).isTrue();
        assertThat(pendingCycles.get()).as("the first, and one for the work left during it").isEqualTo(2);
    }

    @Test
    void workThatKeepsComingIsHandedToTheAgentAfterABoundedNumberOfCycles() {
        AtomicInteger pendingCycles = new AtomicInteger();
        AtomicInteger handOffs = new AtomicInteger();
        ProgressRight[] right = new ProgressRight[1];
        right[0] = new ProgressRight(() -> {
            pendingCycles.incrementAndGet();
            leaveFromAnotherThread(right[0]); // every cycle, more work is left
        }, handOffs::incrementAndGet);

        right[0].acquire();
        leaveFromAnotherThread(right[0]);
        assertThat(right[0].release()).as("cycles the releasing thread ran").isEqualTo(ProgressRight.MAX_PENDING_CYCLES);

        assertThat(pendingCycles.get()).isEqualTo(ProgressRight.MAX_PENDING_CYCLES);
        assertThat(handOffs.get()).as("the rest goes to the agent").isEqualTo(1);
        assertThat(right[0].handedOff()).as("the agent waits for the right, it does not skip").isTrue();
        right[0].takingMarks(); // the agent's cycle
        assertThat(right[0].handedOff()).isFalse();
    }

    /** A poster on another thread leaves work ({@link ProgressRight#leave}); it has returned when this does. */
    private static void leaveFromAnotherThread(ProgressRight right) {
        Thread t = Thread.ofPlatform().start(right::leave);
        try {
            assertThat(t.join(Duration.ofSeconds(5))).as("the poster returned").isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
