package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.Arena;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A passive waiter on an shm completion queue ({@link CompletionQueue#awaitReadyPassively}, an
 * endpoint's dispatch thread) is not woken by a completion while another thread waits actively
 * (blocked, or busy-polling) for that queue, and is woken by one pushed when no thread does: the
 * same contract as the soft device's queue.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PassiveWaiterTest {

    @ParameterizedTest(name = "busyPoll={0}")
    @ValueSource(booleans = {false, true})
    void aCompletionWakesTheActiveWaiterAndNotThePassiveOneWhichALaterPushWakes(boolean busy) throws Exception {
        try (Arena arena = Arena.ofShared(); ShmPair c = ShmPair.open("passive", busy, arena)) {
            CompletionQueue rcq = c.rcq();
            assertThat(rcq.drivenByWaiters()).as("waiters drive a busy-polling device only").isEqualTo(busy);
            for (int i = 0; i < 2; i++) {
                c.qb().postRecv(new WorkRequest().wrId(100 + i).sge(c.dst(), 64L * i, 64));
            }

            CompletableFuture<Boolean> passive = passiveWaiter(rcq);
            CompletableFuture<Boolean> active = CompletableFuture.supplyAsync(() -> {
                try {
                    return rcq.awaitReady(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(100); // both wait
            c.qa().postSend(new WorkRequest().wrId(1).opcode(Opcode.SEND).sge(c.src(), 0, 64));

            assertThat(active.get(10, TimeUnit.SECONDS)).as("the active waiter woke").isTrue();
            Thread.sleep(200);
            assertThat(passive).as("the passive waiter sleeps on").isNotDone();

            c.qa().postSend(new WorkRequest().wrId(2).opcode(Opcode.SEND).sge(c.src(), 0, 64));

            assertThat(passive.get(10, TimeUnit.SECONDS)).as("a push with no active waiter wakes it").isTrue();
            WorkCompletion[] wcs = WorkCompletion.array(2);
            int n = rcq.poll(wcs);
            while (n < 2) {
                int got = rcq.await(WorkCompletion.array(2), 10, TimeUnit.SECONDS);
                assertThat(got).as("both receives completed").isPositive();
                n += got;
            }
        }
    }

    /**
     * A write into memory the peer exports completes inside the post; a poster that said it polls
     * next ({@link CompletionQueue#beginPolling}) finds it there, and the passive waiter sleeps on.
     * Posted the same way without it, the completion wakes the passive waiter.
     */
    @Test
    void aPostThatCompletesAtOnceWakesNoPassiveWaiterWhileItsPosterPolls() throws Exception {
        try (Arena arena = Arena.ofShared(); ShmPair c = ShmPair.open("inline", false, arena)) {
            CompletionQueue scq = c.scq();
            assertThat(scq.completesOnPost()).isTrue();

            WorkCompletion[] wcs = WorkCompletion.array(4);
            int inside = 0;
            for (int attempt = 0; attempt < 5 && inside == 0; attempt++) {
                CompletableFuture<Boolean> passive = passiveWaiter(scq);
                Thread.sleep(100); // it sleeps
                scq.beginPolling();
                try {
                    c.qa().postSend(c.write(1, 0));
                } finally {
                    scq.endPolling();
                }
                if (!scq.awaitReadyPassively(0, TimeUnit.SECONDS)) {
                    // the agent held the device's progress and published it: not completed inside
                    // the post, and its completion wakes the passive waiter (no active one); then try again
                    assertThat(passive.get(10, TimeUnit.SECONDS)).isTrue();
                    assertThat(scq.poll(wcs)).isEqualTo(1);
                    continue;
                }
                inside++;
                Thread.sleep(200);
                assertThat(passive).as("the passive waiter sleeps on, the completion still queued").isNotDone();
                assertThat(scq.poll(wcs)).as("completed inside the post").isEqualTo(1);
                assertThat(wcs[0].isSuccess()).isTrue();

                c.qa().postSend(c.write(2, 64));
                assertThat(passive.get(10, TimeUnit.SECONDS)).as("a post without it wakes the passive waiter")
                        .isTrue();
                assertThat(scq.poll(wcs)).isEqualTo(1);
            }
            assertThat(inside).as("posts completed inside the post, of 5 tries").isEqualTo(1);
        }
    }

    private static CompletableFuture<Boolean> passiveWaiter(CompletionQueue cq) {
        CompletableFuture<Boolean> passive = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                passive.complete(cq.awaitReadyPassively(20, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                passive.completeExceptionally(e);
            }
        });
        return passive;
    }
}
