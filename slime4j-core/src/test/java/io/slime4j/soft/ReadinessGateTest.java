package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The idle agent's gate: a turn skips the duty cycle only when nothing was posted, no socket is
 * readable and the timer bound has not passed since the last cycle; the readiness system call is
 * made only when the cheaper checks say no.
 */
@Timeout(10)
class ReadinessGateTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final ReadinessGate gate = new ReadinessGate(now::get, 20_000);

    /** A wait whose readiness the test sets, counting the checks (each a system call in the real one). */
    private static final class FakeWait extends IdleWait {
        boolean ready;
        int checks;

        @Override
        boolean readyNow() {
            checks++;
            return ready;
        }

        @Override
        boolean await(long timeoutNanos) {
            return ready;
        }

        @Override
        void wake() {
        }

        @Override
        boolean wakesOnArrival() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    private final FakeWait wait = new FakeWait();

    @Test
    void anIdleTurnWithNothingReadableNothingPostedAndNoTimerDueSkipsTheCycle() {
        gate.ran();
        now.addAndGet(5_000);
        assertThat(gate.mustRun(false, wait)).isFalse();
        assertThat(wait.checks).isEqualTo(1);
        assertThat(gate.skipped()).isEqualTo(1);
    }

    @Test
    void aReadableSocketMakesTheTurnRunTheCycle() {
        gate.ran();
        wait.ready = true;
        assertThat(gate.mustRun(false, wait)).isTrue();
        assertThat(gate.skipped()).isZero();
    }

    @Test
    void postedWorkRunsTheCycleWithoutAReadinessCheck() {
        gate.ran();
        assertThat(gate.mustRun(true, wait)).isTrue();
        assertThat(wait.checks).isZero();
    }

    @Test
    void theCycleRunsOnceTheTimerBoundHasPassedSinceTheLastOneEvenWithNothingReadable() {
        gate.ran();
        now.addAndGet(19_999);
        assertThat(gate.mustRun(false, wait)).isFalse();
        now.addAndGet(1);
        assertThat(gate.mustRun(false, wait)).isTrue();
        assertThat(wait.checks).isEqualTo(1); // the due timer needed no system call
        gate.ran();
        assertThat(gate.mustRun(false, wait)).isFalse();
    }

    @Test
    void aWaitThatCannotTellMakesEveryTurnRunTheCycle() {
        IdleWait park = new IdleWait.ParkWait(Thread.currentThread(), true);
        gate.ran();
        assertThat(gate.mustRun(false, park)).isTrue();
    }

    @Test
    void aNegativeTimerBoundIsRefused() {
        assertThatThrownBy(() -> new ReadinessGate(now::get, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timerNanos");
    }
}
