package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link EagerPath#take} and {@link EagerPath#finish} on arrivals that only return their credit (I5), and
 * credit returns from the peer that are bad network input.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class EagerPathTakeTest {
    private final Stats stats = new Stats();
    private final SlotPool sendPool = new SlotPool("send", 4, 1, 0);
    private final SlotPool recvPool = new SlotPool("recv", 4, 1, 0);
    private final EagerPath eager = new EagerPath(new Lifecycle("t"),
            EndpointConfig.builder().eagerThreshold(1024).build(), null, null, sendPool, recvPool,
            new SlotReleaser(EndpointHooks.DEFAULT, stats, null), new Anomalies("t", stats), stats,
            new BackPressure("t", Duration.ofSeconds(1), new OpTracker("t", EndpointHooks.DEFAULT, null)));

    private static WorkCompletion arrival(int kind, int seq) {
        return new WorkCompletion().set(0, WcStatus.SUCCESS, WcOpcode.RECV, 0, Wire32.eagerImm(kind, seq), true, 0);
    }

    @Test
    void aStaleNoticesCreditIsReturnedOnlyInFinish_afterTheReceiveWasReposted() {
        eager.credits().connected(64, 64); // a batch of 8: nothing is sent for one credit
        Slot r = new Slot(0, 1, 0);
        eager.unexpected().post(r, null);
        eager.unexpected().forget(r); // its rendezvous data came: a notice for it is stale
        WorkCompletion wc = arrival(Wire32.EAGER_NOTICE, 0);
        Slot taken = eager.take(wc, null);
        assertThat(eager.credits().unreturned()).as("not before the re-post").isZero();
        eager.finish(taken, wc);
        assertThat(eager.credits().unreturned()).isEqualTo(1);
    }

    @Test
    void aProtocolErrorsCreditIsReturnedOnlyInFinish_andCounted() {
        eager.credits().connected(64, 64);
        Slot r = new Slot(0, 1, 0);
        eager.unexpected().post(r, null);
        eager.unexpected().forget(r);
        WorkCompletion wc = arrival(Wire32.EAGER_DATA, 0); // data for a recv no longer waiting
        Slot taken = eager.take(wc, null);
        assertThat(eager.credits().unreturned()).as("not before the re-post").isZero();
        assertThat(stats.protocolErrors.sum()).isEqualTo(1);
        eager.finish(taken, wc);
        assertThat(eager.credits().unreturned()).isEqualTo(1);
    }

    @Test
    void aPeerReturningMoreCreditsThanItHoldsIsDroppedAndCounted_neverOverflowingTheSemaphore() {
        eager.credits().connected(8, 64);
        assertThat(eager.credits().tryAcquire()).isTrue();
        assertThat(eager.credits().tryAcquire()).isTrue();
        eager.creditsReturned(3);
        eager.creditsReturned(Integer.MAX_VALUE);
        eager.creditsReturned(-1);
        assertThat(stats.protocolErrors.sum()).isEqualTo(3);
        assertThat(eager.credits().available()).isEqualTo(6);
        eager.creditsReturned(2);
        assertThat(eager.credits().available()).isEqualTo(8);
        eager.creditsReturned(1);
        assertThat(eager.credits().available()).as("nothing was out").isEqualTo(8);
        assertThat(stats.protocolErrors.sum()).isEqualTo(4);
    }
}
