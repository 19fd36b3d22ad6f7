package io.slime4j.soft;

import java.util.function.LongSupplier;

/**
 * Whether an idle progress agent must run its next duty cycle or may skip it: while the agent
 * spins and yields between blocks, a full cycle polls every socket of every port (a receive
 * system call each, two per UDP port: the priority and the data socket) only to find them empty.
 * The gate lets the idle turn run the cycle only when something may be there to do: work was
 * posted since the last cycle, the wait's one readiness check ({@link IdleWait#readyNow}, one
 * {@code epoll_pwait2} with a zero timeout over all the sockets) says a socket is readable, or
 * {@code timerNanos} passed since the last full cycle (the cycle also fires timers: retransmission,
 * delayed ACKs, and any work a device holds back for later, so it never waits longer than that).
 * A cycle after one that did work always runs ({@link ProgressAgent} asks the gate only in idle turns).
 *
 * <p>Agent thread only. The clock is injected so the timer bound can be tested.
 */
final class ReadinessGate {
    /** Longest an idle agent goes without a full cycle while it spins or yields. */
    static final long TIMER_NANOS = 20_000;

    private final LongSupplier clock;
    private final long timerNanos;
    private long lastCycle;
    private long skipped;

    ReadinessGate(LongSupplier clock, long timerNanos) {
        if (timerNanos < 0) {
            throw new IllegalArgumentException("timerNanos must be >= 0, was " + timerNanos);
        }
        this.clock = clock;
        this.timerNanos = timerNanos;
        this.lastCycle = clock.getAsLong();
    }

    /** A gate on {@link System#nanoTime()} with the default {@link #TIMER_NANOS}. */
    static ReadinessGate standard() {
        return new ReadinessGate(System::nanoTime, TIMER_NANOS);
    }

    /**
     * Whether the idle turn must run a full cycle: {@code posted} (work was posted or the agent was
     * woken), the timer bound passed, or {@code wait} reports a readable socket (or cannot tell).
     * Checked in that order, so the system call is made only when the first two say no.
     */
    boolean mustRun(boolean posted, IdleWait wait) {
        if (posted || clock.getAsLong() - lastCycle >= timerNanos || wait.readyNow()) {
            return true;
        }
        skipped++;
        return false;
    }

    /** Records that a full cycle ran now. */
    void ran() {
        lastCycle = clock.getAsLong();
    }

    /** Idle turns that skipped the cycle: each saved a poll of every socket. */
    long skipped() {
        return skipped;
    }
}
