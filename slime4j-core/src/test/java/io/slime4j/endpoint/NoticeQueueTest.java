package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class NoticeQueueTest {
    private final EagerCredits credits = new EagerCredits(n -> true);
    private final List<Slot> posted = new CopyOnWriteArrayList<>();
    private final NoticeQueue queue = new NoticeQueue(credits, posted::add);

    @Test
    void aNoticeGoesAtOnceWhenACreditIsFree_elseItWaits() {
        credits.connected(1, 8);
        Slot a = new Slot(0, 1, 0);
        Slot b = new Slot(1, 1, 0);
        queue.add(a);
        queue.add(b);
        assertThat(posted).containsExactly(a);
        assertThat(queue.waiting()).isEqualTo(1);
    }

    @Test
    void aCreditTakenAndNotSpentGoesToTheWaitingNoticeFirst() {
        credits.connected(1, 8);
        assertThat(credits.tryAcquire()).as("a send takes the last credit").isTrue();
        Slot notice = new Slot(0, 1, 0);
        queue.add(notice);
        assertThat(posted).isEmpty();
        queue.back(1); // the send failed after taking its credit
        assertThat(posted).containsExactly(notice);
        assertThat(credits.available()).isZero();
    }

    @Test
    void returnedCreditsGoToWaitingNoticesBeforeAnySender_onlyTheRestIsFreed() throws Exception {
        credits.connected(0, 8);
        Slot notice = new Slot(0, 1, 0);
        queue.add(notice);
        AtomicBoolean senderGot = new AtomicBoolean();
        Thread sender = Thread.ofPlatform().start(() -> {
            try {
                senderGot.set(credits.acquire(TimeUnit.MILLISECONDS.toNanos(300)));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        Thread.sleep(50); // the sender waits for a credit
        queue.back(1);
        sender.join(5000);
        assertThat(posted).containsExactly(notice);
        assertThat(senderGot).as("the sender did not take the notice's credit").isFalse();
        queue.back(3);
        assertThat(credits.available()).isEqualTo(3);
    }

    @Test
    void clearingGivesEveryWaitingSlotBack() {
        credits.connected(0, 8);
        queue.add(new Slot(0, 1, 0));
        queue.add(new Slot(1, 1, 0));
        List<Slot> back = new CopyOnWriteArrayList<>();
        queue.clear(back::add);
        assertThat(back).hasSize(2);
        assertThat(queue.waiting()).isZero();
    }
}
