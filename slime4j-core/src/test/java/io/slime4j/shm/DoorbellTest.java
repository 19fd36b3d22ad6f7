package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The futex doorbell: a ring wakes a sleeper at once; an unrung bell lets it sleep only its bound. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DoorbellTest {

    @Test
    void aRingWakesASleeperLongBeforeItsBound() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment device = SharedMemory.allocate(Layout.DEV_SIZE, arena);
            AtomicLong slept = new AtomicLong(-1);
            Thread sleeper = Thread.ofPlatform().start(() -> {
                int seen = Doorbell.value(device);
                long start = System.nanoTime();
                Doorbell.await(device, seen, Duration.ofSeconds(20).toNanos());
                slept.set(System.nanoTime() - start);
            });
            while (Layout.getIntVolatile(device, Layout.DEV_SLEEPING) == 0) {
                Thread.onSpinWait();
            }
            Thread.sleep(20); // let it reach the futex
            Doorbell.ring(device);
            sleeper.join(10_000);
            assertThat(slept.get()).as("nanoseconds asleep until the ring woke it").isBetween(0L, 10_000_000_000L);
            assertThat(Layout.getIntVolatile(device, Layout.DEV_SLEEPING)).as("sleeping flag after waking").isZero();
        }
    }

    @Test
    void aBellRungBeforeTheSleepIsNotLost() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment device = SharedMemory.allocate(Layout.DEV_SIZE, arena);
            int seen = Doorbell.value(device);
            Doorbell.ring(device); // between taking the value and sleeping
            long start = System.nanoTime();
            Doorbell.await(device, seen, Duration.ofSeconds(20).toNanos());
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void anUnrungBellSleepsAboutItsBoundAndNoLonger() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment device = SharedMemory.allocate(Layout.DEV_SIZE, arena);
            long start = System.nanoTime();
            Doorbell.await(device, Doorbell.value(device), Duration.ofMillis(30).toNanos());
            Duration slept = Duration.ofNanos(System.nanoTime() - start);
            assertThat(slept).isGreaterThanOrEqualTo(Duration.ofMillis(25)).isLessThan(Duration.ofSeconds(5));
        }
    }
}
