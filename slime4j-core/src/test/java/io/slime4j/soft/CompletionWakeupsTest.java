package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Wake-ups owed during a duty cycle: each marked queue is woken once at the cycle's end however
 * many completions it got, and nothing is owed outside a cycle.
 */
@Timeout(10)
class CompletionWakeupsTest {
    private static final class Queue implements CompletionWakeups.Wakeable {
        int woken;

        @Override
        public void wakeNow() {
            woken++;
        }
    }

    private final CompletionWakeups wakeups = new CompletionWakeups();

    @Test
    void aQueueMarkedSeveralTimesInACycleIsWokenOnceAtItsEnd() {
        Queue a = new Queue();
        Queue b = new Queue();
        wakeups.begin();
        wakeups.owe(a);
        wakeups.owe(a);
        wakeups.owe(b);
        wakeups.owe(a);
        assertThat(a.woken).as("nothing before the cycle ends").isZero();
        assertThat(wakeups.owedCount()).isEqualTo(2);

        assertThat(wakeups.flush()).isEqualTo(2);
        assertThat(a.woken).isEqualTo(1);
        assertThat(b.woken).isEqualTo(1);
        assertThat(wakeups.flush()).as("a second flush owes nothing").isZero();
        assertThat(a.woken).isEqualTo(1);
    }

    @Test
    void wakeUpsMayBeOwedOnlyBetweenACyclesBeginningAndItsEnd() {
        assertThat(wakeups.isOpen()).isFalse();
        wakeups.begin();
        assertThat(wakeups.isOpen()).isTrue();
        wakeups.flush();
        assertThat(wakeups.isOpen()).isFalse();
    }

    @Test
    void manyQueuesGrowTheMarksAndEachIsWokenOnce() {
        Queue[] qs = new Queue[20];
        wakeups.begin();
        for (int i = 0; i < qs.length; i++) {
            qs[i] = new Queue();
            wakeups.owe(qs[i]);
            wakeups.owe(qs[i]);
        }
        assertThat(wakeups.flush()).isEqualTo(20);
        for (Queue q : qs) {
            assertThat(q.woken).isEqualTo(1);
        }
    }
}
