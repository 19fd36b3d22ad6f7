package io.slime4j.soft;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Work other threads hand to the thread that drives one device: a command queued here runs at the
 * start of the agent's next duty cycle ({@link #runQueued}), or at once on the caller when no agent
 * drives the device any more (it was closed, its agent died, or it was opened undriven) or when
 * the caller is the agent itself or a thread inside one of the device's cycles. Also the wait for the agent's memory accesses to end
 * ({@link #awaitQuiescence}), which deregistration needs.
 */
final class AgentCommands {
    private static final Logger LOG = LoggerFactory.getLogger(AgentCommands.class);
    private static final long QUIESCENCE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final String device;
    private final ProgressAgent agent;
    private final DutyCycle duty;
    /** Wakes whoever runs the device's next cycle: its agent, or a waiter blocked on its sockets. */
    private final Runnable nudge;
    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    /** Set once the agent no longer drives the device: work then runs on the calling thread. */
    private volatile boolean detached;

    AgentCommands(String device, ProgressAgent agent, DutyCycle duty, Runnable nudge) {
        this.device = device;
        this.agent = agent;
        this.duty = duty;
        this.nudge = nudge;
    }

    /** From now on no agent drives the device: commands run on their callers. */
    void detach() {
        detached = true;
    }

    private boolean onCaller() {
        return detached || !agent.isRunning() || Thread.currentThread() == agent.thread() || duty.heldByCurrentThread();
    }

    /** Runs {@code command} on the agent thread (or here, if the agent no longer drives the device). */
    void run(Runnable command) {
        if (onCaller()) {
            command.run();
            return;
        }
        queue.add(command);
        nudge.run();
    }

    /**
     * Returns once every memory access a duty cycle may have begun before this call has ended:
     * waits for two complete cycles of the device, whichever thread ran them (the agent, or a
     * waiter driving a busy-polling device) (bounded; not needed inside a cycle or once the agent stopped).
     */
    void awaitQuiescence() {
        if (onCaller()) {
            return;
        }
        if (!duty.awaitCycles(2, QUIESCENCE_TIMEOUT_NANOS, nudge, agent::isRunning)) {
            LOG.warn("device {}: agent did not complete a cycle within 5 s during deregistration", device);
        }
    }

    /** Runs the queued commands (the agent at the start of a duty cycle, or the closing thread); returns how many. */
    int runQueued() {
        int n = 0;
        Runnable c;
        while ((c = queue.poll()) != null) {
            c.run();
            n++;
        }
        return n;
    }

    /** Whether no command waits. */
    boolean isEmpty() {
        return queue.isEmpty();
    }
}
