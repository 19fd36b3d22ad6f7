package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.WcStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@link Keepalive} driven by a test clock: when a probe goes out, and what its completion does. */
class KeepaliveTest {
    private static final long SECOND = 1_000_000_000L;

    private final List<Long> posted = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private final AtomicBoolean connected = new AtomicBoolean(true);

    private Keepalive keepalive(long interval) {
        return keepalive(interval, 0);
    }

    private Keepalive keepalive(long interval, long deadline) {
        return new Keepalive("test", interval, deadline, 0, connected::get, posted::add,
                (status, why) -> failures.add(status + ": " + why));
    }

    @Test
    void anIdleRailGetsOneProbeAfterTheInterval_andNoSecondWhileItIsOutstanding() {
        Keepalive k = keepalive(2 * SECOND);
        assertThat(k.tick(SECOND)).isFalse();
        assertThat(k.tick(2 * SECOND)).as("idle for the interval").isTrue();
        assertThat(posted).containsExactly(Keepalive.wrId());
        assertThat(WrIds.kind(posted.getFirst())).isEqualTo(WrIds.KEEPALIVE);
        assertThat(k.isProbing()).isTrue();
        assertThat(k.tick(10 * SECOND)).as("one probe outstanding at most").isFalse();
        assertThat(k.probes()).isEqualTo(1);
    }

    @Test
    void trafficPostponesTheProbe_soABusyRailCarriesNone() {
        Keepalive k = keepalive(2 * SECOND);
        for (long t = 0; t <= 20 * SECOND; t += SECOND / 2) {
            k.traffic(t);
            assertThat(k.tick(t)).isFalse();
        }
        assertThat(k.tick(21 * SECOND)).isFalse();
        assertThat(k.tick(22 * SECOND)).as("idle for the interval since the last completion").isTrue();
    }

    @Test
    void anAnsweredProbeAllowsTheNextOneAnIntervalLater() {
        Keepalive k = keepalive(SECOND);
        assertThat(k.tick(SECOND)).isTrue();
        k.onCompletion(WcStatus.SUCCESS, 5);
        k.traffic(SECOND + 1_000_000);
        assertThat(k.isProbing()).isFalse();
        assertThat(k.tick(SECOND + SECOND / 2)).isFalse();
        assertThat(k.tick(2 * SECOND + 1_000_000)).isTrue();
        assertThat(failures).isEmpty();
    }

    @Test
    void aProbeThatRunsOutOfRetriesFailsTheEndpointWithTheReason() {
        Keepalive k = keepalive(SECOND);
        k.tick(SECOND);
        k.onCompletion(WcStatus.RETRY_EXC_ERR, 7);
        assertThat(failures).containsExactly("RETRY_EXC_ERR: the keepalive probe on queue pair 7 failed with "
                + "RETRY_EXC_ERR (the peer stopped answering)");
    }

    @Test
    void aFlushedProbeFailsNothing() {
        Keepalive k = keepalive(SECOND);
        k.tick(SECOND);
        k.onCompletion(WcStatus.WR_FLUSH_ERR, 7);
        assertThat(failures).isEmpty();
        assertThat(k.isProbing()).isFalse();
    }

    @Test
    void noProbeBeforeConnect_andTheIdleTimeCountsFromWhenProbingMayBegin() {
        connected.set(false);
        Keepalive k = keepalive(SECOND);
        assertThat(k.tick(10 * SECOND)).isFalse();
        connected.set(true);
        assertThat(k.tick(10 * SECOND + SECOND / 2)).as("connected half an interval ago").isFalse();
        assertThat(k.tick(11 * SECOND)).isTrue();
    }

    @Test
    void zeroIntervalTurnsItOff() {
        Keepalive k = keepalive(0);
        assertThat(k.tick(Long.MAX_VALUE / 2)).isFalse();
        assertThat(posted).isEmpty();
    }

    @Test
    void aProbeTheQueuePairRefusesIsNotCountedAsOutstanding() {
        Keepalive k = new Keepalive("test", SECOND, 0, 0, () -> true, id -> {
            throw new IllegalStateException("queue pair in ERR");
        }, (s, w) -> failures.add(w));
        assertThat(k.tick(SECOND)).isFalse();
        assertThat(k.isProbing()).isFalse();
        assertThat(failures).isEmpty();
    }

    @Test
    void withoutADeadline_anUnansweredProbeFailsNothingUntilItsRetriesRunOut() {
        Keepalive k = keepalive(2 * SECOND);
        assertThat(k.tick(2 * SECOND)).isTrue();
        k.tick(6 * SECOND); // where a 4 s deadline would have struck
        k.tick(14 * SECOND);
        assertThat(failures).as("the default: only the probe's retry budget fails it").isEmpty();
        assertThat(k.isProbing()).isTrue();
    }

    @Test
    void withADeadline_aProbeUnansweredThatLongFailsTheEndpointOnce_withoutWaitingForItsRetries() {
        Keepalive k = keepalive(2 * SECOND, 4 * SECOND);
        assertThat(k.tick(2 * SECOND)).isTrue(); // the probe goes out
        k.tick(6 * SECOND - 1);
        assertThat(failures).as("before the deadline").isEmpty();
        k.tick(6 * SECOND);
        assertThat(failures).singleElement().asString().startsWith("RETRY_EXC_ERR")
                .contains("keepalive probe on the meta queue pair was not acknowledged within 4000 ms (keepaliveDeadline)",
                        "the peer stopped answering");
        k.tick(20 * SECOND);
        assertThat(failures).as("once").hasSize(1);
    }

    @Test
    void withADeadline_otherCompletionsOrTheProbesAnswerKeepTheDeadlineAway() {
        Keepalive k = keepalive(2 * SECOND, 4 * SECOND);
        k.tick(2 * SECOND);
        k.traffic(5 * SECOND); // the peer answers something else: the probe may be queued behind it
        k.tick(8 * SECOND);
        assertThat(failures).as("4 s counts from the last completion").isEmpty();
        k.tick(9 * SECOND);
        assertThat(failures).as("4 s after the last completion").hasSize(1);
    }

    @Test
    void withADeadline_anAnsweredProbeLeavesNoLateDeadlineBehind() {
        Keepalive k = keepalive(2 * SECOND, 4 * SECOND);
        k.tick(2 * SECOND);
        k.onCompletion(WcStatus.SUCCESS, 3);
        k.traffic(3 * SECOND);
        assertThat(k.tick(5 * SECOND)).as("the next probe, an interval after the answer").isTrue();
        k.onCompletion(WcStatus.SUCCESS, 3);
        k.traffic(5 * SECOND);
        k.tick(30 * SECOND);
        assertThat(k.probes()).isEqualTo(3);
        assertThat(failures).isEmpty();
    }
}
