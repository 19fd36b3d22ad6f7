package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.locks.LockSupport;

/**
 * The one thread that drives a device: calls {@link SoftDevice#doWork(long)} in a loop and, when a
 * cycle did no work, idles by spinning, then yielding, then parking for up to
 * {@link SoftConfig#maxIdlePark()} (or only spins, when {@link SoftConfig#busySpin()}). Posting
 * threads and the wire wake it with {@link #wakeup()}; a wake-up that races with the agent going to
 * park is never lost (the agent re-checks a pending flag after announcing that it parks). Catches
 * and counts every exception of a cycle; an {@link Error} stops it.
 */
final class ProgressAgent implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(ProgressAgent.class);
    private static final int SPINS = 200;
    private static final int YIELDS = 20;
    private static final long MIN_PARK_NANOS = 1_000;

    private final SoftDevice device;
    private final boolean busySpin;
    private final long maxParkNanos;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean parked;
    /** Set by {@link #wakeup()}, cleared by the agent before each cycle: a Dekker pair with {@link #parked}. */
    private volatile boolean wakePending;
    private volatile long cycles;
    private int idleCount;
    private long parkNanos = MIN_PARK_NANOS;

    ProgressAgent(SoftDevice device, SoftConfig config) {
        this.device = device;
        this.busySpin = config.busySpin();
        this.maxParkNanos = config.maxIdlePark().toNanos();
        this.thread = Thread.ofPlatform().daemon(true).name("slime4j-agent-" + device.name()).unstarted(this);
    }

    void start() {
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    /** Whether the thread is alive: it may still be finishing its last cycle after {@link #stop}. */
    boolean isRunning() {
        return thread.isAlive();
    }

    /** Completed duty cycles; used to wait until accesses begun before a point have ended. */
    long cycles() {
        return cycles;
    }

    void wakeup() {
        wakePending = true; // then read parked: if the agent is about to park, it sees this flag
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void run() {
        while (running) {
            if (wakePending) {
                wakePending = false; // before the cycle: work posted after this is seen by it or wakes us
            }
            int work = 0;
            try {
                work = device.doWork(System.nanoTime());
            } catch (Throwable t) {
                device.countersSet().increment(Counter.AGENT_ERRORS);
                if (t instanceof Error e) {
                    LOG.error("progress agent of {} stopped by an error; failing its queue pairs", device.name(), e);
                    running = false;
                    cycles++;
                    device.onAgentDeath();
                    throw e;
                }
                LOG.warn("progress agent of {} caught an exception; continuing", device.name(), t);
            }
            cycles++;
            idle(work);
        }
    }

    private void idle(int work) {
        if (work > 0 || busySpin) {
            idleCount = 0;
            parkNanos = MIN_PARK_NANOS;
            if (busySpin) {
                Thread.onSpinWait();
            }
            return;
        }
        idleCount++;
        if (idleCount <= SPINS) {
            Thread.onSpinWait();
        } else if (idleCount <= SPINS + YIELDS) {
            Thread.yield();
        } else {
            parked = true;
            if (wakePending) {
                // posted since this cycle began: run again at once, and spin again before parking
                parked = false;
                idleCount = 0;
                parkNanos = MIN_PARK_NANOS;
                return;
            }
            if (running) {
                LockSupport.parkNanos(parkNanos);
            }
            parked = false;
            parkNanos = Math.min(parkNanos * 2, maxParkNanos);
        }
    }

    /** Stops the thread and waits up to {@code timeoutMillis} for it. */
    boolean stop(long timeoutMillis) throws InterruptedException {
        running = false;
        LockSupport.unpark(thread);
        if (Thread.currentThread() == thread) {
            return true;
        }
        thread.join(timeoutMillis);
        return !thread.isAlive();
    }
}
