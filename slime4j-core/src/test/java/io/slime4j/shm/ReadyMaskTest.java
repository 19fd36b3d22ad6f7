package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.QpConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The ready mask on its own, with an injected clock: marks become active queue pairs, a turn that
 * did nothing and wants none drops its queue pair, and a sweep runs every queue pair once per
 * interval and counts the turns it alone found work for.
 */
class ReadyMaskTest {
    private static final long SWEEP = 10_000_000;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment file = arena.allocate(Layout.DEV_SIZE, 64);

    @AfterEach
    void free() {
        arena.close();
    }

    private static List<Integer> active(ReadyMask m) {
        List<Integer> out = new ArrayList<>();
        for (int w = 0; w < m.words(); w++) {
            for (long bits = m.active(w); bits != 0; bits &= bits - 1) {
                out.add((w << 6) | Long.numberOfTrailingZeros(bits));
            }
        }
        return out;
    }

    @Test
    void marksBecomeActiveOnceTakenAndTheMaskIsCleared() {
        ReadyMask m = new ReadyMask(file, SWEEP, 0);
        m.cover(3);
        ReadyMask.mark(file, 3);
        ReadyMask.mark(file, 1);
        assertThat(active(m)).as("nothing taken yet").isEmpty();
        m.collect(1, List.of());
        assertThat(active(m)).containsExactly(1, 3);
        assertThat(Layout.getVolatile(file, Layout.DEV_READY)).as("the marks were taken").isZero();
        m.collect(2, List.of());
        assertThat(active(m)).as("active until a turn drops them").containsExactly(1, 3);
    }

    @Test
    void aTurnThatDidNothingAndWantsNoneDropsItsQueuePair() {
        ReadyMask m = new ReadyMask(file, SWEEP, 0);
        m.cover(5);
        for (int q : new int[] {2, 4, 5}) {
            ReadyMask.mark(file, q);
        }
        m.collect(1, List.of());
        m.ran(2, 1, false); // did work: looks again next cycle
        m.ran(4, 0, true); // requests outstanding: its timers need turns
        m.ran(5, 0, false);
        assertThat(active(m)).containsExactly(2, 4);
        m.ran(2, 0, false);
        assertThat(active(m)).containsExactly(4);
        m.activate(5); // a poster published and its requests are outstanding now
        assertThat(active(m)).containsExactly(4, 5);
        m.drop(4);
        assertThat(active(m)).containsExactly(5);
        assertThat(m.turns()).isEqualTo(4);
    }

    @Test
    void theWordsLookedAtGrowWithTheHighestQueuePairNumber() {
        ReadyMask m = new ReadyMask(file, SWEEP, 0);
        ReadyMask.mark(file, 200);
        m.collect(1, List.of());
        assertThat(active(m)).as("word 3 is not in use yet: its mark waits").isEmpty();
        m.cover(200);
        assertThat(m.words()).isEqualTo(4);
        m.collect(2, List.of());
        assertThat(active(m)).containsExactly(200);
        m.cover(7);
        assertThat(m.words()).as("never shrinks below the highest").isEqualTo(4);
    }

    @Test
    void aSweepRunsEveryQueuePairOncePerIntervalAndCountsWhatOnlyItFound() {
        try (Arena shared = Arena.ofShared();
             ShmDevice device = ShmDevice.open(ShmConfig.builder().name("sweep").build())) {
            var pd = device.allocateProtectionDomain();
            pd.register(shared.allocate(64, 64), AccessFlags.ALL);
            var cq = device.createCompletionQueue(4);
            List<ShmQueuePair> qps = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                qps.add((ShmQueuePair) device.createQueuePair(pd, QpConfig.defaults(), cq, cq));
            }
            ReadyMask m = new ReadyMask(file, SWEEP, 0);
            qps.forEach(q -> m.cover(q.qpn()));
            ReadyMask.mark(file, qps.get(0).qpn());
            m.collect(SWEEP - 1, qps);
            assertThat(active(m)).containsExactly(qps.get(0).qpn());
            m.collect(SWEEP, qps);
            assertThat(active(m)).as("the sweep").containsExactly(qps.get(0).qpn(), qps.get(1).qpn(), qps.get(2).qpn());
            m.ran(qps.get(0).qpn(), 1, false); // marked: work it found is not the sweep's
            m.ran(qps.get(1).qpn(), 1, false); // only the sweep ran it, and it had work: a missed mark, unless one comes
            m.ran(qps.get(2).qpn(), 0, false);
            assertThat(active(m)).containsExactly(qps.get(0).qpn(), qps.get(1).qpn());
            m.ran(qps.get(1).qpn(), 1, false);
            assertThat(m.sweepFinds()).as("decided at the next collect").isZero();
            m.collect(SWEEP + 1, qps);
            assertThat(m.sweepFinds()).as("no mark came: counted once").isEqualTo(1);
            m.collect(2 * SWEEP - 1, qps);
            assertThat(active(m)).as("no sweep before the interval passed again").hasSize(2);

            // the next sweep's turn finds work in qp 2, whose poster marks it just after: not a miss
            m.ran(qps.get(0).qpn(), 0, false);
            m.ran(qps.get(1).qpn(), 0, false);
            m.collect(2 * SWEEP, qps);
            m.ran(qps.get(2).qpn(), 1, false);
            ReadyMask.mark(file, qps.get(2).qpn());
            m.collect(2 * SWEEP + 1, qps);
            assertThat(m.sweepFinds()).as("the mark came after the work it announced").isEqualTo(1);
            // and one whose mark was set when the sweep's turn found its work (taken by a collect, the turn decides)
            m.collect(3 * SWEEP, qps);
            ReadyMask.mark(file, qps.get(1).qpn());
            m.ran(qps.get(1).qpn(), 1, false);
            Layout.getAndSet(file, Layout.DEV_READY, 0); // as if taken: the next collect does not see it
            m.collect(3 * SWEEP + 1, qps);
            assertThat(m.sweepFinds()).isEqualTo(1);
        }
    }
}
