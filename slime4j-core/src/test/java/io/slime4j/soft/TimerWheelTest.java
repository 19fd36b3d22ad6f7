package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.slime4j.soft.TimerWheel.Timer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TimerWheelTest {

    /** A timer that knows its name, and a handler that records what fired when. */
    static final class Named extends Timer {
        final String name;

        Named(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static final class Recorder implements TimerWheel.Handler {
        final List<Timer> fired = new ArrayList<>();
        final List<Long> at = new ArrayList<>();

        @Override
        public void onExpiry(Timer timer, long nowNanos) {
            fired.add(timer);
            at.add(nowNanos);
        }
    }

    @Test
    void rejectsSlotsThatAreNotAPowerOfTwoAndTicksThatAreNotPositive() {
        assertThatThrownBy(() -> new TimerWheel(100, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TimerWheel(100, 12, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TimerWheel(100, -8, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TimerWheel(0, 8, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TimerWheel(-1, 8, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new TimerWheel(1, 1, 0).tickNanos()).isEqualTo(1);
    }

    @Test
    void firesAtItsDeadlineAndNeverBefore() {
        TimerWheel wheel = new TimerWheel(100, 8, 0);
        Named t = new Named("t");
        Recorder r = new Recorder();
        wheel.schedule(t, 550);

        assertThat(t.isScheduled()).isTrue();
        assertThat(t.deadlineNanos()).isEqualTo(550);
        assertThat(wheel.poll(500, r)).isZero();
        assertThat(wheel.poll(549, r)).isZero();
        assertThat(wheel.poll(550, r)).isEqualTo(1);
        assertThat(r.fired).containsExactly(t);
        assertThat(r.at).containsExactly(550L);
        assertThat(t.isScheduled()).isFalse();
        assertThat(wheel.poll(10_000, r)).isZero();
    }

    @Test
    void timersScheduledForTheSameDeadlineAndOthersBetweenThemEachFireAtTheirOwn() {
        // a cycle schedules its packets for one deadline; the wheel reuses that deadline's tick
        TimerWheel wheel = new TimerWheel(100, 8, 0);
        Recorder r = new Recorder();
        Named a = new Named("a");
        Named b = new Named("b");
        Named c = new Named("c");
        Named d = new Named("d");
        wheel.schedule(a, 550);
        wheel.schedule(b, 550);
        wheel.schedule(c, 250);
        wheel.schedule(d, 550);
        wheel.schedule(b, 1_250); // moved: one revolution less a tick later

        assertThat(wheel.poll(250, r)).isEqualTo(1);
        assertThat(wheel.poll(549, r)).isZero();
        assertThat(wheel.poll(550, r)).isEqualTo(2);
        assertThat(wheel.poll(1_249, r)).isZero();
        assertThat(wheel.poll(1_250, r)).isEqualTo(1);
        assertThat(r.fired).containsExactly(c, d, a, b);
        assertThat(r.at).containsExactly(250L, 550L, 550L, 1_250L);
    }

    @Test
    void aDeadlineInThePastFiresAtTheNextPoll() {
        TimerWheel wheel = new TimerWheel(100, 8, 1_000);
        Recorder r = new Recorder();
        wheel.poll(5_000, r);
        Named t = new Named("t");
        wheel.schedule(t, 10);

        assertThat(wheel.poll(5_000, r)).isEqualTo(1);
        assertThat(r.fired).containsExactly(t);
    }

    @Test
    void aCancelledTimerNeverFires() {
        TimerWheel wheel = new TimerWheel(100, 8, 0);
        Named t = new Named("t");
        wheel.schedule(t, 300);

        assertThat(wheel.cancel(t)).isTrue();
        assertThat(t.isScheduled()).isFalse();
        assertThat(wheel.cancel(t)).isFalse();
        assertThat(wheel.size()).isZero();
        assertThat(wheel.poll(100_000, new Recorder())).isZero();
    }

    @Test
    void reschedulingMovesTheTimerEarlierOrLater() {
        TimerWheel wheel = new TimerWheel(100, 8, 0);
        Named t = new Named("t");
        Recorder r = new Recorder();

        wheel.schedule(t, 1_000);
        wheel.schedule(t, 300);
        assertThat(wheel.size()).isEqualTo(1);
        assertThat(wheel.poll(300, r)).isEqualTo(1);
        assertThat(wheel.poll(2_000, r)).isZero();

        wheel.schedule(t, 2_300);
        wheel.schedule(t, 7_000);
        for (long now = 2_000; now < 7_000; now += 100) {
            assertThat(wheel.poll(now, r)).as("poll at %d", now).isZero();
        }
        assertThat(wheel.poll(7_000, r)).isEqualTo(1);
        assertThat(r.at).containsExactly(300L, 7_000L);
    }

    @Test
    void deadlinesSeveralRevolutionsAheadFireWhenTheirRoundComes() {
        TimerWheel wheel = new TimerWheel(100, 8, 0); // one revolution is 800 ns
        Named near = new Named("near");
        Named one = new Named("one revolution");
        Named three = new Named("three revolutions");
        Recorder r = new Recorder();
        wheel.schedule(three, 250 + 3 * 800 + 10);
        wheel.schedule(near, 250);
        wheel.schedule(one, 250 + 800);

        for (long now = 0; now <= 4_000; now += 50) {
            wheel.poll(now, r);
        }
        assertThat(r.fired).containsExactly(near, one, three);
        assertThat(r.at).containsExactly(250L, 1_050L, 2_700L);
    }

    @Test
    void aHandlerMayRescheduleTheTimerItIsFiring() {
        TimerWheel wheel = new TimerWheel(100, 8, 0);
        Named periodic = new Named("periodic");
        List<Long> at = new ArrayList<>();
        TimerWheel.Handler handler = (t, now) -> {
            at.add(now);
            wheel.schedule(t, t.deadlineNanos() + 300);
        };
        wheel.schedule(periodic, 300);

        for (long now = 0; now <= 3_000; now += 100) {
            wheel.poll(now, handler);
        }
        assertThat(at).containsExactly(300L, 600L, 900L, 1_200L, 1_500L, 1_800L, 2_100L, 2_400L, 2_700L, 3_000L);
        assertThat(periodic.isScheduled()).isTrue();
    }

    @Test
    void aHandlerMayCancelTheOtherTimersInTheSameBucket() {
        TimerWheel wheel = new TimerWheel(100, 8, 0);
        List<Named> group = List.of(new Named("a"), new Named("b"), new Named("c"), new Named("d"));
        Named nextRound = new Named("next round");
        for (int i = 0; i < group.size(); i++) {
            wheel.schedule(group.get(i), 110 + 10 * i);
        }
        wheel.schedule(nextRound, 110 + 800);
        Recorder r = new Recorder();
        TimerWheel.Handler handler = (t, now) -> {
            r.onExpiry(t, now);
            group.forEach(wheel::cancel);
        };

        assertThat(wheel.poll(200, handler)).isEqualTo(1);
        assertThat(r.fired).hasSize(1);
        assertThat(wheel.size()).isEqualTo(1);
        assertThat(nextRound.isScheduled()).isTrue();
        assertThat(wheel.poll(910, handler)).isEqualTo(1);
        assertThat(r.fired).last().isSameAs(nextRound);
    }

    @Test
    void aTimerAHandlerSchedulesForThePastFiresByTheNextPollWithoutLooping() {
        TimerWheel wheel = new TimerWheel(100, 8, 0);
        Named t = new Named("t");
        Named other = new Named("other");
        int[] fired = new int[1];
        TimerWheel.Handler handler = (timer, now) -> {
            fired[0]++;
            wheel.schedule(timer, now); // due at once, again and again
            if (timer == t) {
                wheel.schedule(other, 0);
            }
        };
        wheel.schedule(t, 150);

        int first = wheel.poll(150, handler);
        assertThat(first).isBetween(1, 2);
        int second = wheel.poll(150, handler);
        assertThat(second).isBetween(1, 2);
        assertThat(first + second).isGreaterThanOrEqualTo(3); // t twice, other at least once
        assertThat(wheel.size()).isEqualTo(2);
    }

    @Test
    void aLongIdleGapFiresEverythingDueWithoutWalkingEveryTick() {
        long gap = 1_000_000_000_000L; // 10^12 ticks of 1 ns: walking them would take minutes
        TimerWheel wheel = new TimerWheel(1, 16, 0);
        Named[] due = {new Named("5"), new Named("17"), new Named("1000"), new Named("10^6")};
        long[] deadlines = {5, 17, 1_000, 1_000_000};
        for (int i = 0; i < due.length; i++) {
            wheel.schedule(due[i], deadlines[i]);
        }
        Named far = new Named("far");
        wheel.schedule(far, 1_000 * gap + 3);
        Recorder r = new Recorder();

        assertThat(wheel.poll(gap, r)).isEqualTo(4);
        assertThat(r.fired).containsExactlyInAnyOrder(due);
        assertThat(wheel.size()).isEqualTo(1);

        Named after = new Named("after");
        wheel.schedule(after, gap + 5);
        assertThat(wheel.poll(gap + 4, r)).isZero();
        assertThat(wheel.poll(gap + 5, r)).isEqualTo(1);
        assertThat(wheel.poll(1_000 * gap + 2, r)).isZero();
        assertThat(wheel.poll(1_000 * gap + 3, r)).isEqualTo(1);
        assertThat(r.fired).last().isSameAs(far);
    }

    @Test
    void extremeDeadlinesNeitherOverflowNorFireEarly() {
        TimerWheel wheel = new TimerWheel(1_000, 8, -1_000_000);
        Named never = new Named("max");
        Named past = new Named("min");
        wheel.schedule(never, Long.MAX_VALUE);
        wheel.schedule(past, Long.MIN_VALUE);
        Recorder r = new Recorder();

        assertThat(wheel.poll(0, r)).isEqualTo(1);
        assertThat(r.fired).containsExactly(past);
        assertThat(wheel.poll(Long.MAX_VALUE - 1, r)).isZero();
        assertThat(wheel.poll(Long.MAX_VALUE, r)).isEqualTo(1);
        assertThat(r.fired).last().isSameAs(never);
    }

    @Test
    void sizeCountsScheduledTimers() {
        TimerWheel wheel = new TimerWheel(100, 8, 0);
        Named a = new Named("a");
        Named b = new Named("b");
        Named c = new Named("c");
        assertThat(wheel.isEmpty()).isTrue();

        wheel.schedule(a, 100);
        wheel.schedule(b, 200);
        wheel.schedule(c, 5_000);
        assertThat(wheel.size()).isEqualTo(3);
        wheel.schedule(b, 300);
        assertThat(wheel.size()).isEqualTo(3);
        wheel.cancel(c);
        wheel.cancel(c);
        assertThat(wheel.size()).isEqualTo(2);
        wheel.poll(100, new Recorder());
        assertThat(wheel.size()).isEqualTo(1);
        wheel.poll(300, new Recorder());
        assertThat(wheel.size()).isZero();
        assertThat(wheel.isEmpty()).isTrue();
    }

    @Test
    void aTimerScheduledOnAnotherWheelIsRejected() {
        TimerWheel one = new TimerWheel(100, 8, 0);
        TimerWheel two = new TimerWheel(100, 8, 0);
        Named t = new Named("t");
        one.schedule(t, 100);

        assertThatThrownBy(() -> two.schedule(t, 200)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> two.cancel(t)).isInstanceOf(IllegalArgumentException.class);
        assertThat(one.size()).isEqualTo(1);
        assertThat(two.size()).isZero();
    }

    @Test
    void pollingFromAHandlerIsRejected() {
        TimerWheel wheel = new TimerWheel(100, 8, 0);
        wheel.schedule(new Named("t"), 100);

        assertThatThrownBy(() -> wheel.poll(100, (t, now) -> wheel.poll(now, (u, n) -> { })))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aHandlerThatThrowsLosesNoOtherTimer() {
        TimerWheel wheel = new TimerWheel(100, 8, 0);
        for (int i = 1; i <= 7; i++) {
            wheel.schedule(new Named(Integer.toString(i)), 100L * i);
        }
        Recorder r = new Recorder();
        TimerWheel.Handler throwing = (t, now) -> {
            r.onExpiry(t, now);
            if (t.deadlineNanos() == 300) {
                throw new IllegalStateException("boom");
            }
        };

        assertThatThrownBy(() -> wheel.poll(750, throwing)).hasMessage("boom");
        assertThat(r.fired).hasSize(3);
        assertThat(wheel.size()).isEqualTo(4);
        assertThat(wheel.poll(750, r)).isEqualTo(4);
        assertThat(wheel.isEmpty()).isTrue();
    }

    /** A timer carrying the reference model's view of it. */
    static final class Modelled extends Timer {
        final int id;
        long expected;
        boolean scheduled;
        int version;
        /** Version scheduled by a handler with a deadline already past: may wait a poll. */
        int lateAllowedVersion = -1;

        Modelled(int id) {
            this.id = id;
        }
    }

    /** Drives a wheel with random operations and checks it against a model after every poll. */
    static final class ModelCheck {
        static final long TICK = 1_000;
        static final int SLOTS = 64;
        static final long REVOLUTION = TICK * SLOTS;

        final SplittableRandom rnd;
        final long start = -7_777_777_777L; // nanoTime may be negative
        final TimerWheel wheel = new TimerWheel(TICK, SLOTS, start);
        final Modelled[] timers;
        final PriorityQueue<long[]> byDeadline = new PriorityQueue<>(Comparator.comparingLong(e -> e[0]));
        final List<Modelled> lateAllowed = new ArrayList<>();
        final boolean reentrant;
        long now = start;
        int created;
        int modelSize;
        long fired;
        long firedThisPoll;

        ModelCheck(long seed, int count, boolean reentrant) {
            this.rnd = new SplittableRandom(seed);
            this.timers = new Modelled[count];
            this.reentrant = reentrant;
        }

        void run() {
            while (created < timers.length) {
                int op = rnd.nextInt(100);
                if (op < 40) {
                    Modelled t = new Modelled(created);
                    timers[created++] = t;
                    schedule(t, pickDeadline());
                } else if (op < 55) {
                    schedule(any(), pickDeadline());
                } else if (op < 75) {
                    cancel(any());
                } else {
                    advance(pickStep());
                }
            }
            for (Modelled t : timers) {
                if (t.scheduled && t.expected == Long.MAX_VALUE) {
                    cancel(t);
                }
            }
            while (modelSize > 0) {
                advance(REVOLUTION / 3);
            }
            assertThat(wheel.isEmpty()).isTrue();
        }

        long pickDeadline() {
            return switch (rnd.nextInt(10)) {
                case 0 -> now - rnd.nextLong(5 * TICK);
                case 1 -> start + (now - start) / TICK * TICK + TICK * rnd.nextLong(4); // on a tick edge
                case 2 -> now + rnd.nextLong(6 * REVOLUTION);
                case 3 -> rnd.nextInt(50) == 0 ? Long.MAX_VALUE : now + rnd.nextLong(TICK);
                default -> now + rnd.nextLong(4 * TICK);
            };
        }

        long pickStep() {
            int kind = rnd.nextInt(200);
            if (kind == 0) {
                return REVOLUTION * (2 + rnd.nextLong(100)) + rnd.nextLong(TICK);
            }
            return kind < 50 ? rnd.nextLong(TICK / 4) : rnd.nextLong(2 * TICK);
        }

        Modelled any() {
            return created == 0 ? null : timers[rnd.nextInt(created)];
        }

        void schedule(Modelled t, long deadline) {
            if (t == null) {
                return;
            }
            wheel.schedule(t, deadline);
            if (!t.scheduled) {
                modelSize++;
            }
            t.scheduled = true;
            t.expected = deadline;
            t.version++;
            byDeadline.add(new long[] {deadline, t.id, t.version});
            assertThat(t.isScheduled()).isTrue();
            assertThat(t.deadlineNanos()).isEqualTo(deadline);
        }

        void cancel(Modelled t) {
            if (t == null) {
                return;
            }
            assertThat(wheel.cancel(t)).isEqualTo(t.scheduled);
            if (t.scheduled) {
                modelSize--;
            }
            t.scheduled = false;
            assertThat(t.isScheduled()).isFalse();
        }

        void onExpiry(Timer timer, long at) {
            Modelled t = (Modelled) timer;
            if (!t.scheduled) {
                fail("timer %d fired but was not scheduled", t.id);
            }
            if (t.expected > at) {
                fail("timer %d fired early: deadline %d, now %d", t.id, t.expected, at);
            }
            assertThat(t.isScheduled()).isFalse();
            assertThat(t.deadlineNanos()).isEqualTo(t.expected);
            t.scheduled = false;
            modelSize--;
            firedThisPoll++;
            if (reentrant) {
                meddle(t, at);
            }
        }

        /** What an engine's handler does: re-arm, cancel and arm timers while the wheel polls. */
        void meddle(Modelled t, long at) {
            int op = rnd.nextInt(10);
            if (op < 3) {
                schedule(t, at + 1 + rnd.nextLong(3 * REVOLUTION));
            } else if (op < 5) {
                cancel(any());
            } else if (op < 7) {
                schedule(any(), at + 1 + rnd.nextLong(4 * TICK));
            } else if (op == 7) {
                Modelled other = any();
                schedule(other, at - rnd.nextLong(2 * TICK));
                other.lateAllowedVersion = other.version;
                lateAllowed.add(other);
            }
        }

        void advance(long step) {
            now += step;
            List<Modelled> mayBeLate = new ArrayList<>(lateAllowed);
            lateAllowed.clear();
            firedThisPoll = 0;
            int n = wheel.poll(now, this::onExpiry);
            assertThat(n).isEqualTo(firedThisPoll);
            fired += n;
            assertThat(wheel.size()).isEqualTo(modelSize);
            for (Modelled t : mayBeLate) {
                if (t.scheduled && t.version == t.lateAllowedVersion) {
                    fail("timer %d scheduled for the past in a handler did not fire at the next poll", t.id);
                }
            }
            List<long[]> deferred = new ArrayList<>();
            while (!byDeadline.isEmpty() && byDeadline.peek()[0] <= now) {
                long[] e = byDeadline.poll();
                Modelled t = timers[(int) e[1]];
                if (t.scheduled && t.version == e[2]) {
                    if (t.lateAllowedVersion != t.version) {
                        fail("timer %d due at %d still scheduled after poll at %d", t.id, e[0], now);
                    }
                    deferred.add(e); // scheduled for the past by a handler during this poll
                }
            }
            byDeadline.addAll(deferred);
        }
    }

    @Test
    void hundredThousandRandomTimersFireOnTimeExactlyOnceAgainstAReferenceModel() {
        ModelCheck check = new ModelCheck(0x5EED_0001L, 100_000, false);
        check.run();
        assertThat(check.fired).isGreaterThan(10_000);
    }

    @Test
    void handlersThatScheduleAndCancelDuringPollKeepTheWheelConsistent() {
        ModelCheck check = new ModelCheck(0x5EED_0002L, 50_000, true);
        check.run();
        assertThat(check.fired).isGreaterThan(10_000);
    }
}
