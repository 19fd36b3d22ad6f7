package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentCommandsTest {
    private final ProgressAgent idleAgent = new ProgressAgent("never-started", false, Duration.ofMillis(1));

    @Test
    void aCommandRunsOnTheCallerWhenNoAgentThreadRuns() {
        AgentCommands commands = new AgentCommands("dev", idleAgent, new DutyCycle(now -> 0, true, DutyCycleTest.RETHROW), idleAgent::nudge);
        List<String> ran = new ArrayList<>();
        commands.run(() -> ran.add(Thread.currentThread().getName()));
        assertThat(ran).containsExactly(Thread.currentThread().getName());
        assertThat(commands.isEmpty()).isTrue();
        assertThat(commands.runQueued()).isZero();
    }

    @Test
    void aDetachedDeviceRunsCommandsOnTheCallerAndNeedsNoQuiescenceWait() {
        AgentCommands commands = new AgentCommands("dev", idleAgent, new DutyCycle(now -> 0, true, DutyCycleTest.RETHROW), idleAgent::nudge);
        commands.detach();
        int[] n = {0};
        commands.run(() -> n[0]++);
        commands.awaitQuiescence(); // returns at once: nothing drives the device
        assertThat(n[0]).isEqualTo(1);
    }
}
