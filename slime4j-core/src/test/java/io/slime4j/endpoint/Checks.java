package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/** Bounded waits that fail with an {@link AssertionError} saying what was awaited. */
final class Checks {
    private Checks() {}

    /** Waits (10 s at most) for success and returns the future. */
    static TransferFuture success(TransferFuture f) throws InterruptedException {
        return success(f, Duration.ofSeconds(10));
    }

    /** Waits ({@code within} at most) for success and returns the future. */
    static TransferFuture success(TransferFuture f, Duration within) throws InterruptedException {
        TransferStatus s;
        try {
            s = f.await(within);
        } catch (TimeoutException e) {
            throw new AssertionError(f + " did not complete within " + within, e);
        }
        assertThat(s).as("status of %s (%s)", f, f.failureMessage()).isEqualTo(TransferStatus.SUCCESS);
        return f;
    }

    static void eventually(BooleanSupplier condition, Duration within, String what) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " did not happen within " + within);
            }
            Thread.sleep(2);
        }
    }

    /** A piece of test code that may throw. */
    interface Body {
        void run() throws Exception;
    }

    /** Runs the garbage collector until {@code condition} holds or {@code attempts} runs passed; whether it held. */
    static boolean gcUntil(BooleanSupplier condition, int attempts) throws InterruptedException {
        for (int i = 0; i < attempts; i++) {
            if (condition.getAsBoolean()) {
                return true;
            }
            System.gc();
            Thread.sleep(10);
        }
        return condition.getAsBoolean();
    }
}
