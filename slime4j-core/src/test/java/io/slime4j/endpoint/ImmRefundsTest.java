package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ImmRefunds}: after a lane's re-establishment, the peer's immediates posted on the old
 * queue pair that consumed no receive here are refunded — exactly once, only when both the peer's
 * statement and the old window's last completion are in, in either order; receives are counted by
 * queue pair number, so the fresh pair's never count for the old one's.
 */
@Timeout(10)
class ImmRefundsTest {
    private final List<Integer> refunds = new ArrayList<>();
    private final ImmRefunds r = new ImmRefunds(new int[] {10, 11}, refunds::add);
    private final AtomicInteger outstanding = new AtomicInteger(8); // the old window: 8 receives posted

    private void complete(int qpn, boolean success) {
        if (qpn == 11) {
            outstanding.decrementAndGet();
        }
        r.completed(1, qpn, success);
    }

    @Test
    void immediatesThatConsumedNoReceiveAreRefundedOnceTheOldWindowDrainedAndThePeerStated() {
        complete(11, true); // consumed before the fault: returned the usual way, not refunded
        complete(11, true);
        r.retire(1, 11, outstanding::get, 111);
        complete(11, true); // consumed after the window moved, still the old pair's
        r.peerPosted(1, 7); // the peer posted 7 on its old pair: 3 consumed here
        assertThat(refunds).as("the old window has not drained").isEmpty();
        for (int i = 0; i < 4; i++) {
            complete(11, false); // flushes
        }
        assertThat(refunds).isEmpty();
        complete(11, false); // the last receive of the old window
        assertThat(refunds).containsExactly(4);
        complete(111, true); // the fresh pair's: not the old one's
        r.peerPosted(1, 7);
        assertThat(refunds).as("once").containsExactly(4);
    }

    @Test
    void theStatementMayComeAfterTheWindowDrained() {
        complete(11, true);
        r.retire(1, 11, outstanding::get, 111);
        for (int i = 0; i < 7; i++) {
            complete(11, false);
        }
        assertThat(refunds).isEmpty();
        r.peerPosted(1, 3);
        assertThat(refunds).containsExactly(2);
    }

    @Test
    void theFreshPairsReceivesCountForTheNextRoundNotThisOne() {
        r.retire(1, 11, outstanding::get, 111);
        complete(111, true); // the peer already writes on the fresh pair
        complete(111, true);
        for (int i = 0; i < 8; i++) {
            complete(11, false);
        }
        r.peerPosted(1, 1);
        assertThat(refunds).containsExactly(1);
        AtomicInteger fresh = new AtomicInteger(0); // the next round: the fresh window drained at once
        r.retire(1, 111, fresh::get, 112);
        r.peerPosted(1, 5); // 2 of them consumed on 111
        assertThat(refunds).containsExactly(1, 3);
    }

    @Test
    void nothingIsRefundedWhenEveryImmediateConsumedAReceive() {
        complete(11, true);
        complete(11, true);
        r.retire(1, 11, outstanding::get, 111);
        r.peerPosted(1, 2);
        for (int i = 0; i < 6; i++) {
            complete(11, false);
        }
        assertThat(refunds).isEmpty();
        r.completed(0, 10, true); // another lane: untouched
        assertThat(refunds).isEmpty();
    }
}
