package io.slime4j.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** Counts stored once and summed on read: a root's totals, retirement, and no count lost or doubled. */
class CounterCellsTest {

    @Test
    void aRootsTotalsAreItsOwnCountsAndItsChildrens() {
        CounterCells device = new CounterCells(4, 8);
        CounterCells qp1 = device.child();
        CounterCells qp2 = device.child();
        device.add(0, 1);
        qp1.add(0, 10);
        qp2.add(0, 100);
        qp2.add(3, 7);

        assertThat(device.get(0)).isEqualTo(111);
        assertThat(device.get(3)).isEqualTo(7);
        assertThat(qp1.get(0)).isEqualTo(10);
        assertThat(qp2.get(0)).isEqualTo(100);
        assertThat(device.get(1)).isZero();
    }

    @Test
    void aRetiredChildsCountsStayInTheTotalsAndInItsOwnView() {
        CounterCells device = new CounterCells(2, 1);
        CounterCells qp = device.child();
        qp.add(1, 5);
        qp.retire();
        qp.retire(); // idempotent

        assertThat(device.get(1)).isEqualTo(5);
        assertThat(qp.get(1)).isEqualTo(5);

        qp.add(1, 2); // counted after its queue pair was gone (a flushed completion polled late)
        assertThat(device.get(1)).isEqualTo(7);
        assertThat(qp.get(1)).isEqualTo(7);

        CounterCells next = device.child(); // a new queue pair adds to the same totals
        next.add(1, 1);
        assertThat(device.get(1)).isEqualTo(8);
    }

    @Test
    void misuseIsRefused() {
        CounterCells device = new CounterCells(1, 1);
        assertThatThrownBy(device::retire).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> device.child().child()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new CounterCells(0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Threads count on children while they are retired: the totals come out exact. */
    @RepeatedTest(20)
    void countsRacingARetirementAreNeitherLostNorDoubled() throws Exception {
        CounterCells device = new CounterCells(1, 8);
        int threads = 3;
        int adds = 20_000;
        List<CounterCells> qps = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            qps.add(device.child());
        }
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> counting = new ArrayList<>();
        for (CounterCells qp : qps) {
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < adds; i++) {
                    qp.add(0, 1);
                }
            });
            t.start();
            counting.add(t);
        }
        go.countDown();
        for (CounterCells qp : qps) {
            Thread.onSpinWait();
            qp.retire();
        }
        for (Thread t : counting) {
            t.join(10_000);
            assertThat(t.isAlive()).isFalse();
        }

        assertThat(device.get(0)).isEqualTo((long) threads * adds);
        for (CounterCells qp : qps) {
            assertThat(qp.get(0)).isEqualTo(adds);
        }
    }
}
