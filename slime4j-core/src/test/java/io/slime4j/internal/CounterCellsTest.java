package io.slime4j.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
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
        assertThatThrownBy(() -> new CounterCells(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Threads count on children and each child is retired in the middle of its thread's counting
     * (which goes on a little after, as a destroyed queue pair's late completions do), while a
     * reader watches the totals: the device's total never goes down and never exceeds what was
     * counted, a child's own view never exceeds its counts, and at the end both are exact.
     */
    @RepeatedTest(20)
    void countsRacingARetirementAreNeitherLostNorDoubled() throws Exception {
        CounterCells device = new CounterCells(1, 8);
        int threads = 3;
        int adds = 50_000;
        int late = 100;
        AtomicBoolean retiredAll = new AtomicBoolean();
        long[] made = new long[threads];
        List<CounterCells> qps = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            qps.add(device.child());
        }
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch underWay = new CountDownLatch(threads);
        List<Thread> counting = new ArrayList<>();
        for (int q = 0; q < threads; q++) {
            CounterCells qp = qps.get(q);
            int me = q;
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                int i = 0;
                int after = 0;
                while (i < adds && after < late) {
                    qp.add(0, 1);
                    i++;
                    if (i == 1_000) {
                        underWay.countDown(); // retired from about here on: the sweep races these adds
                    }
                    if (retiredAll.get()) {
                        after++;
                    }
                }
                made[me] = i;
            });
            t.start();
            counting.add(t);
        }
        AtomicReference<String> wrong = new AtomicReference<>();
        AtomicBoolean done = new AtomicBoolean();
        Thread reader = new Thread(() -> {
            long last = 0;
            while (!done.get() && wrong.get() == null) {
                long total = device.get(0);
                if (total < last || total > (long) threads * adds) {
                    wrong.set("device total read " + total + " after " + last);
                }
                last = total;
                for (CounterCells qp : qps) {
                    long own = qp.get(0);
                    if (own > adds) {
                        wrong.set("a queue pair's own view read " + own + " of " + adds + " counts");
                    }
                }
            }
        });
        reader.start();
        go.countDown();
        assertThat(underWay.await(10, TimeUnit.SECONDS)).isTrue();
        for (CounterCells qp : qps) {
            qp.retire();
        }
        retiredAll.set(true);
        for (Thread t : counting) {
            t.join(10_000);
            assertThat(t.isAlive()).isFalse();
        }
        done.set(true);
        reader.join(10_000);

        assertThat(wrong.get()).as("what the reader saw").isNull();
        long all = 0;
        for (int q = 0; q < threads; q++) {
            assertThat(qps.get(q).get(0)).as("queue pair " + q + "'s own view").isEqualTo(made[q]);
            all += made[q];
        }
        assertThat(device.get(0)).as("the device's total").isEqualTo(all);
    }
}
