package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.WcStatus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LaneRecovery}'s protocol between two sides, with the transport replaced by a recording
 * stand-in (queue pair numbers, whether the old pair still has requests, the messages in flight)
 * and an injected clock: rounds start only on remote access errors, both sides move to fresh
 * queue pairs paired with each other, a lane waits for its old requests, crossing rounds end as
 * one, stale messages are dropped, and a round the peer never answers gives the lane up at the
 * bound (the last lane failing the endpoint). The real transport is exercised by
 * {@code OneBadRequestTest} and {@code OneBadRequestCrossProcessTest}.
 */
@Timeout(30)
class LaneRecoveryTest {
    private static final long BOUND = 5_000_000_000L;

    /** One side: its lanes' queue pair numbers, fresh pairs, connections and outbox. */
    static final class Side implements LaneRecovery.Lanes {
        final String name;
        final int[] qpn;
        final Integer[] fresh;
        final Integer[] connectedTo = new Integer[4];
        final boolean[] busy;
        final Queue<int[]> outbox = new ArrayDeque<>();
        final List<Integer> discarded = new ArrayList<>();
        final int[] immPosted = new int[4];
        final Integer[] peerPosted = new Integer[4];
        int nextQpn;
        Side peer;

        Side(String name, int qps, int firstQpn) {
            this.name = name;
            this.qpn = new int[qps];
            this.fresh = new Integer[qps];
            this.busy = new boolean[qps];
            for (int i = 0; i < qps; i++) {
                qpn[i] = firstQpn + i;
            }
            nextQpn = firstQpn + 100;
        }

        @Override
        public int qpn(int lane) {
            return qpn[lane];
        }

        @Override
        public QpInfo prepare(int lane) {
            fresh[lane] = nextQpn++;
            return new QpInfo(name, fresh[lane], 7, 1);
        }

        @Override
        public void connect(int lane, QpInfo remote) {
            connectedTo[lane] = remote.qpn();
        }

        @Override
        public boolean adoptIfDrained(int lane) {
            if (busy[lane] || fresh[lane] == null || connectedTo[lane] == null) {
                return false;
            }
            qpn[lane] = fresh[lane];
            fresh[lane] = null;
            return true;
        }

        @Override
        public void discard(int lane) {
            if (fresh[lane] != null) {
                discarded.add(fresh[lane]);
            }
            fresh[lane] = null;
        }

        @Override
        public void send(int type, int lane, int epoch, QpInfo info) {
            outbox.add(new int[] {type, Wire32.laneValue(lane, epoch), info.qpn(), immPosted[lane]});
        }

        @Override
        public void peerPosted(int lane, Wire32.Lane message) {
            peerPosted[lane] = message.immPosted();
        }

        @Override
        public QpInfo remote(int lane, Wire32.Lane message) {
            return new QpInfo(peer.name, message.qpn(), message.psn(), message.token());
        }
    }

    private final Side a = new Side("a", 2, 10);
    private final Side b = new Side("b", 2, 20);
    private final Router routerA = new Router("a", new RoundRobinSelector(true, 2), 2);
    private final Router routerB = new Router("b", new RoundRobinSelector(true, 2), 2);
    private final List<String> failures = new ArrayList<>();
    private final LaneRecovery ra = new LaneRecovery("a", 2, a, routerA, BOUND, () -> true, () -> true,
            (s, why) -> failures.add("a " + s + " " + why), () -> { });
    private final LaneRecovery rb = new LaneRecovery("b", 2, b, routerB, BOUND, () -> false, () -> true,
            (s, why) -> failures.add("b " + s + " " + why), () -> { });

    {
        a.peer = b;
        b.peer = a;
    }

    /** Delivers every queued message both ways until none is left; how many. */
    private int deliver(long now) {
        int n = 0;
        boolean moved = true;
        while (moved) {
            moved = false;
            int[] m;
            while ((m = a.outbox.poll()) != null) {
                rb.onMessage(m[0], m[1], new Wire32.Lane(m[2], 7, 1, m[3]), now);
                n++;
                moved = true;
            }
            while ((m = b.outbox.poll()) != null) {
                ra.onMessage(m[0], m[1], new Wire32.Lane(m[2], 7, 1, m[3]), now);
                n++;
                moved = true;
            }
        }
        return n;
    }

    @Test
    void aRemoteAccessErrorReplacesTheLanesQueuePairOnBothSidesPairedWithEachOther() {
        assertThat(ra.onFault(1, 11, WcStatus.REM_ACCESS_ERR, 0)).isTrue();
        assertThat(routerA.isRecovering(1)).as("out of rotation while re-established").isTrue();
        assertThat(routerA.isDead(0)).isFalse();
        assertThat(deliver(1)).as("a reset and its answer").isEqualTo(2);
        assertThat(a.qpn[1]).isEqualTo(110);
        assertThat(b.qpn[1]).isEqualTo(120);
        assertThat(a.connectedTo[1]).isEqualTo(120);
        assertThat(b.connectedTo[1]).isEqualTo(110);
        assertThat(routerA.isDead(1)).isFalse();
        assertThat(routerB.isDead(1)).isFalse();
        assertThat(ra.completed.sum()).isEqualTo(1);
        assertThat(rb.completed.sum()).isEqualTo(1);
        assertThat(failures).isEmpty();
    }

    @Test
    void onlyRemoteAccessAndInvalidRequestErrorsStartARound() {
        assertThat(ra.onFault(0, 10, WcStatus.RETRY_EXC_ERR, 0)).isFalse();
        assertThat(ra.onFault(0, 10, WcStatus.LOC_PROT_ERR, 0)).isFalse();
        assertThat(ra.onFault(0, 10, WcStatus.REM_INV_REQ_ERR, 0)).isTrue();
        assertThat(ra.started.sum()).isEqualTo(1);
    }

    @Test
    void aFaultOfAReplacedQueuePairOrOfALaneAlreadyUnderWayStartsNothingNew() {
        ra.onFault(0, 10, WcStatus.REM_ACCESS_ERR, 0);
        assertThat(ra.onFault(0, 10, WcStatus.REM_ACCESS_ERR, 0)).isTrue();
        deliver(1);
        assertThat(ra.onFault(0, 10, WcStatus.REM_ACCESS_ERR, 2)).as("the old queue pair's late error").isTrue();
        assertThat(ra.started.sum()).isEqualTo(1);
        assertThat(a.outbox).isEmpty();
    }

    @Test
    void aLaneWaitsUntilItsOldQueuePairHasNothingOutstandingThenMoves() {
        b.busy[1] = true; // the peer's old pair still has requests whose flushes are not dispatched yet
        ra.onFault(1, 11, WcStatus.REM_ACCESS_ERR, 0);
        deliver(1);
        assertThat(routerA.isDead(1)).isFalse();
        assertThat(routerB.isRecovering(1)).isTrue();
        assertThat(b.qpn[1]).isEqualTo(21);
        b.busy[1] = false;
        rb.onRetired(1);
        assertThat(b.qpn[1]).isEqualTo(120);
        assertThat(routerB.isDead(1)).isFalse();
    }

    @Test
    void roundsStartedByBothSidesAtOnceEndAsOneWithTheTieBreakersQueuePairs() {
        ra.onFault(0, 10, WcStatus.REM_ACCESS_ERR, 0);
        rb.onFault(0, 20, WcStatus.REM_ACCESS_ERR, 0);
        deliver(1);
        assertThat(a.connectedTo[0]).isEqualTo(120);
        assertThat(b.connectedTo[0]).isEqualTo(110);
        assertThat(a.qpn[0]).isEqualTo(110);
        assertThat(b.qpn[0]).isEqualTo(120);
        assertThat(routerA.isDead(0)).isFalse();
        assertThat(routerB.isDead(0)).isFalse();
        assertThat(ra.stale.sum() + rb.stale.sum()).isZero();
        ra.onFault(0, 110, WcStatus.REM_ACCESS_ERR, 2); // the next round opens epoch 2 on both sides
        assertThat(deliver(3)).isEqualTo(2);
        assertThat(a.qpn[0]).isEqualTo(111);
    }

    @Test
    void aMessageForAnotherEpochIsDroppedAndCounted() {
        rb.onMessage(Wire32.LANE_READY_TYPE, Wire32.laneValue(0, 1), new Wire32.Lane(5, 7, 1), 0);
        rb.onMessage(Wire32.LANE_RESET_TYPE, Wire32.laneValue(0, 3), new Wire32.Lane(5, 7, 1), 0);
        rb.onMessage(Wire32.LANE_RESET_TYPE, Wire32.laneValue(9, 1), new Wire32.Lane(5, 7, 1), 0);
        assertThat(rb.stale.sum()).isEqualTo(3);
        assertThat(b.outbox).isEmpty();
        assertThat(routerB.isDead(0)).isFalse();
    }

    @Test
    void aRoundThePeerNeverAnswersFailsTheEndpointAtTheBoundAndNotBefore() {
        ra.onFault(1, 11, WcStatus.REM_ACCESS_ERR, 0);
        a.outbox.clear(); // the peer is gone
        ra.tick(BOUND - 1);
        assertThat(routerA.isRecovering(1)).as("before the bound").isTrue();
        assertThat(failures).isEmpty();
        ra.tick(BOUND);
        assertThat(routerA.isRecovering(1)).isFalse();
        assertThat(a.discarded).containsExactly(110);
        assertThat(failures).singleElement().asString().contains("a RETRY_EXC_ERR", "lane 1 failed a request with "
                + "REM_ACCESS_ERR and the peer did not answer its re-establishment within 5000 ms");
        assertThat(ra.abandoned.sum()).isEqualTo(1);
    }

    @Test
    void aRequestThatRunsOutOfRetriesDuringARoundLeavesTheLaneToTheRound() {
        ra.onFault(1, 11, WcStatus.REM_ACCESS_ERR, 0);
        assertThat(ra.onFault(1, 11, WcStatus.RETRY_EXC_ERR, 1)).as("the round handles it").isTrue();
        assertThat(routerA.isRecovering(1)).isTrue();
        assertThat(routerA.hasFailed(1)).as("not failed for good behind the round's back").isFalse();
        deliver(2);
        assertThat(a.qpn[1]).isEqualTo(110);
        assertThat(routerA.isDead(1)).as("back in the rotation with the round").isFalse();
        assertThat(failures).isEmpty();
    }

    @Test
    void aLaneFailedForGoodStartsNoRound() {
        routerA.markDead(1);
        assertThat(ra.onFault(1, 11, WcStatus.REM_ACCESS_ERR, 0)).isFalse();
        assertThat(ra.started.sum()).isZero();
        assertThat(a.outbox).isEmpty();
    }

    @Test
    void eachSideHearsTheImmediatesThePeerPostedOnTheOldPairTheAnswererFromTheResetTheInitiatorFromTheAnswer() {
        a.immPosted[1] = 3;
        b.immPosted[1] = 5;
        ra.onFault(1, 11, WcStatus.REM_ACCESS_ERR, 0);
        deliver(1);
        assertThat(b.peerPosted[1]).isEqualTo(3);
        assertThat(a.peerPosted[1]).isEqualTo(5);
    }

    @Test
    void inCrossingRoundsEachSideHearsThePeerOnce() {
        a.immPosted[0] = 2;
        b.immPosted[0] = 4;
        ra.onFault(0, 10, WcStatus.REM_ACCESS_ERR, 0);
        rb.onFault(0, 20, WcStatus.REM_ACCESS_ERR, 0);
        deliver(1);
        assertThat(b.peerPosted[0]).as("the loser, from the winner's reset").isEqualTo(2);
        assertThat(a.peerPosted[0]).as("the winner, from the loser's answer").isEqualTo(4);
    }
}
