package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class EagerCreditsTest {
    private final List<Integer> sent = new ArrayList<>();
    private boolean refuse;
    private final EagerCredits credits = new EagerCredits(n -> {
        if (refuse) {
            return false;
        }
        sent.add(n);
        return true;
    });

    @Test
    void aSenderSpendsThePeersWindowAndThenWaitsWithABound() throws Exception {
        credits.connected(3, 32);
        assertThat(credits.tryAcquire()).isTrue();
        assertThat(credits.acquire(0)).isTrue();
        assertThat(credits.tryAcquire()).isTrue();
        assertThat(credits.tryAcquire()).as("the window is spent").isFalse();
        long t0 = System.nanoTime();
        assertThat(credits.acquire(TimeUnit.MILLISECONDS.toNanos(50))).isFalse();
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        credits.free(2);
        assertThat(credits.available()).isEqualTo(2);
        credits.free(1);
        assertThat(credits.available()).isEqualTo(3);
    }

    @Test
    void aReceiverReturnsCreditsInBatchesOfAnEighthOfItsWindow() {
        credits.connected(64, 64); // batch 8
        credits.consumed(7);
        assertThat(sent).isEmpty();
        assertThat(credits.unreturned()).isEqualTo(7);
        credits.consumed(1);
        assertThat(sent).containsExactly(8);
        assertThat(credits.unreturned()).isZero();
        credits.consumed(3);
        credits.consumed(6);
        assertThat(sent).containsExactly(8, 9);
    }

    @Test
    void aSmallWindowReturnsEveryCredit() {
        credits.connected(2, 2); // batch 1
        credits.consumed(1);
        credits.consumed(1);
        assertThat(sent).containsExactly(1, 1);
    }

    @Test
    void atMostTheReserveOfCreditMessagesIsUnacknowledged_theRestWaitsForACompletion() {
        credits.connected(4, 4); // batch 1
        for (int i = 0; i < EndpointConfig.CREDIT_RESERVE; i++) {
            credits.consumed(1);
        }
        assertThat(sent).hasSize(EndpointConfig.CREDIT_RESERVE);
        credits.consumed(1);
        credits.consumed(1);
        assertThat(sent).as("no room: the credits wait").hasSize(EndpointConfig.CREDIT_RESERVE);
        credits.onReturnSent(true);
        assertThat(sent).hasSize(EndpointConfig.CREDIT_RESERVE + 1);
        assertThat(sent.getLast()).isEqualTo(2);
    }

    @Test
    void aRefusedCreditMessageKeepsItsCreditsForTheNextTry() {
        credits.connected(4, 4);
        refuse = true;
        credits.consumed(1);
        assertThat(credits.unreturned()).isEqualTo(1);
        refuse = false;
        credits.consumed(1);
        assertThat(sent).containsExactly(2);
    }

    @Test
    void wakingReleasesEveryWaiterOnce() throws Exception {
        credits.connected(0, 4);
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                assertThat(credits.acquire(TimeUnit.SECONDS.toNanos(5))).isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        Thread.sleep(50);
        credits.wake();
        credits.wake();
        waiter.join(5000);
        assertThat(waiter.isAlive()).isFalse();
        assertThat(credits.available()).isEqualTo(Integer.MAX_VALUE / 4 - 1);
    }
}
