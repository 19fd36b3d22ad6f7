package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class OpSignalTest {
    @Test
    void aFiredSignalReturnsAtOnceForeverAfter() throws Exception {
        OpSignal s = new OpSignal();
        assertThat(s.isFired()).isFalse();
        s.fire();
        assertThat(s.isFired()).isTrue();
        assertThat(s.awaitFired(0)).isTrue();
        assertThat(s.awaitFired(TimeUnit.SECONDS.toNanos(1))).isTrue();
        s.awaitFired();
    }

    @Test
    void aBoundedWaitOnAnUnfiredSignalTimesOutAfterItsBound() throws Exception {
        OpSignal s = new OpSignal();
        long t0 = System.nanoTime();
        assertThat(s.awaitFired(TimeUnit.MILLISECONDS.toNanos(20))).isFalse();
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
        assertThat(s.awaitFired(0)).isFalse();
    }

    @Test
    void aParkedWaiterIsWokenByTheFiring() throws Exception {
        OpSignal s = new OpSignal();
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
            started.countDown();
            try {
                return s.awaitFired(TimeUnit.SECONDS.toNanos(20));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        started.await();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // let it park
        long t0 = System.nanoTime();
        s.fire();
        assertThat(waited.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(System.nanoTime() - t0).as("woken, not timed out").isLessThan(TimeUnit.SECONDS.toNanos(10));
    }

    @Test
    void severalThreadsWaitingOnOneOpAllWake() throws Exception {
        OpSignal s = new OpSignal();
        int n = 4;
        CountDownLatch started = new CountDownLatch(n);
        CompletableFuture<?>[] waits = new CompletableFuture<?>[n];
        for (int i = 0; i < n; i++) {
            waits[i] = CompletableFuture.runAsync(() -> {
                started.countDown();
                try {
                    s.awaitFired();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }, r -> Thread.ofPlatform().start(r));
        }
        started.await();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        s.fire();
        CompletableFuture.allOf(waits).get(10, TimeUnit.SECONDS);
    }

    @Test
    void anInterruptedWaiterThrowsAndLeavesTheSignalUsable() throws Exception {
        OpSignal s = new OpSignal();
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> s.awaitFired(TimeUnit.SECONDS.toNanos(5))).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        s.fire();
        assertThat(s.awaitFired(TimeUnit.SECONDS.toNanos(1))).isTrue();
    }
}
