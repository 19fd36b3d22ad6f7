package io.slime4j.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ParkedThreadsTest {
    @Test
    void placesAreTakenInTurnAndFreedOnRemoval() {
        ParkedThreads p = new ParkedThreads();
        Thread me = Thread.currentThread();
        int a = p.add(me);
        int b = p.add(me);
        assertThat(a).isZero();
        assertThat(b).isEqualTo(1);
        p.remove(me, a);
        assertThat(p.add(me)).as("a freed place is taken again").isZero();
    }

    @Test
    void moreThreadsThanPlacesGoToTheOverflowAndAreAllWoken() throws Exception {
        ParkedThreads p = new ParkedThreads();
        int n = ParkedThreads.PLACES + 3;
        AtomicBoolean go = new AtomicBoolean();
        CountDownLatch registered = new CountDownLatch(n);
        CountDownLatch woken = new CountDownLatch(n);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                Thread me = Thread.currentThread();
                int place = p.add(me);
                registered.countDown();
                while (!go.get()) {
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(20)); // only wakeAll ends this in time
                }
                p.remove(me, place);
                woken.countDown();
            }));
        }
        assertThat(registered.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(50);
        go.set(true);
        p.wakeAll();
        assertThat(woken.await(10, TimeUnit.SECONDS)).as("every parked thread woken, overflow included").isTrue();
        for (Thread t : threads) {
            t.join(5_000);
        }
    }
}
