package io.slime4j.wire.inproc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpscArrayQueueTest {

    @Test
    void pollsInOfferOrderAndRefusesWhenFull() {
        MpscArrayQueue<Integer> q = new MpscArrayQueue<>(4);
        for (int i = 0; i < 4; i++) {
            assertThat(q.offer(i)).isTrue();
        }

        assertThat(q.offer(4)).isFalse();
        assertThat(q.size()).isEqualTo(4);
        assertThat(q.poll()).isEqualTo(0);
        assertThat(q.offer(4)).isTrue();
        List<Integer> rest = new ArrayList<>();
        for (Integer e; (e = q.poll()) != null; ) {
            rest.add(e);
        }
        assertThat(rest).containsExactly(1, 2, 3, 4);
        assertThat(q.size()).isZero();
    }

    @Test
    void wrapsAroundManyTimes() {
        MpscArrayQueue<Integer> q = new MpscArrayQueue<>(8);
        for (int i = 0; i < 1000; i++) {
            assertThat(q.offer(i)).isTrue();
            assertThat(q.offer(-i)).isTrue();
            assertThat(q.poll()).isEqualTo(i);
            assertThat(q.poll()).isEqualTo(-i);
        }
        assertThat(q.poll()).isNull();
    }

    @Test
    void rejectsCapacitiesThatAreNotPowersOfTwo() {
        assertThatThrownBy(() -> new MpscArrayQueue<Integer>(6)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MpscArrayQueue<Integer>(1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @Timeout(10)
    void concurrentProducersLoseAndDuplicateNothing() throws Exception {
        MpscArrayQueue<Integer> q = new MpscArrayQueue<>(1024);
        int producers = 4;
        int perProducer = 100_000;
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int base = p * perProducer;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perProducer; i++) {
                    while (!q.offer(base + i)) {
                        Thread.yield();
                    }
                }
            }));
        }

        int[] next = new int[producers];
        int received = 0;
        while (received < producers * perProducer) {
            Integer e = q.poll();
            if (e == null) {
                Thread.onSpinWait();
                continue;
            }
            int producer = e / perProducer;
            assertThat(e % perProducer).isEqualTo(next[producer]);
            next[producer]++;
            received++;
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(q.poll()).isNull();
    }
}
