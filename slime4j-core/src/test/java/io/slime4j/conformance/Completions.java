package io.slime4j.conformance;

import static org.assertj.core.api.Assertions.fail;

import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.WorkCompletion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Bounded waits on completion queues and conditions. Every wait fails the test with a message
 * saying what was awaited and what arrived, instead of hanging.
 */
final class Completions {
    /** How long a wait may go without any new completion before the test fails. */
    static final Duration PROGRESS_TIMEOUT = Duration.ofSeconds(10);

    private Completions() {}

    /** Takes exactly one completion, failing if none arrives within {@link #PROGRESS_TIMEOUT}. */
    static WorkCompletion take(CompletionQueue cq, String what) {
        return take(cq, 1, what).getFirst();
    }

    /**
     * Takes exactly {@code n} completions, oldest first, as copies. Fails if
     * {@link #PROGRESS_TIMEOUT} passes without a new completion.
     */
    static List<WorkCompletion> take(CompletionQueue cq, int n, String what) {
        List<WorkCompletion> taken = new ArrayList<>(n);
        while (taken.size() < n) {
            // Never ask for more than still expected: extra completions stay queued for later checks.
            WorkCompletion[] into = WorkCompletion.array(Math.min(256, n - taken.size()));
            int got;
            try {
                got = cq.await(into, PROGRESS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
            if (got == 0) {
                fail("%s: expected %d completions, got %d and then none for %d s; so far: %s",
                        what, n, taken.size(), PROGRESS_TIMEOUT.toSeconds(), abbreviate(taken));
            }
            for (int i = 0; i < got; i++) {
                taken.add(new WorkCompletion().copyFrom(into[i]));
            }
        }
        return taken;
    }

    /** Asserts that no completion arrives on {@code cq} within {@code wait}. */
    static void assertNone(CompletionQueue cq, Duration wait, String what) {
        WorkCompletion[] into = WorkCompletion.array(16);
        int got;
        try {
            got = cq.await(into, wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while checking " + what, e);
        }
        if (got > 0) {
            fail("%s: expected no completion, got %s", what, abbreviate(List.of(into).subList(0, got)));
        }
    }

    /** Waits until {@code condition} holds, polling; fails after {@code within}. */
    static void awaitCondition(BooleanSupplier condition, Duration within, String what) {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("%s did not happen within %d ms", what, within.toMillis());
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting until " + what, e);
            }
        }
    }

    /**
     * Waits (briefly) until {@code qp} reaches {@code state}. The move to ERR is caused by an error
     * completion, so it must have happened by the time that completion was polled; the short grace
     * period only absorbs implementations that publish the completion a moment before the state.
     */
    static void awaitState(QueuePair qp, QpState state) {
        awaitCondition(() -> qp.state() == state, Duration.ofSeconds(2),
                "queue pair " + qp.qpn() + " reaching " + state + " (it is " + qp.state() + ")");
    }

    private static String abbreviate(List<WorkCompletion> wcs) {
        if (wcs.size() <= 12) {
            return wcs.toString();
        }
        return wcs.subList(0, 6) + " ... " + wcs.subList(wcs.size() - 6, wcs.size());
    }
}
