package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ParkedRequests}: requests flushed while every lane was being re-established wait for a
 * lane to come back — any lane — and fail when none is left. The races with a round ending on
 * another thread are played out deterministically: the "other thread" runs inside the park or
 * drain, at the exact point where the old code lost the wake-up.
 */
@Timeout(10)
class ParkedRequestsTest {
    private final Router router = new Router("p", new RoundRobinSelector(true, 3), 3);
    private final List<String> runs = new ArrayList<>();
    private Runnable duringDrain = () -> { };
    private final ParkedRequests parked = new ParkedRequests(router, () -> {
        duringDrain.run();
        return false;
    }, (id, lane) -> runs.add(WrIds.slot(id) + "->" + lane));

    private static long request(int lane, int slot) {
        return WrIds.encode(WrIds.IO, lane, slot, 0, 1);
    }

    private void everyLaneRecovering() {
        for (int q = 0; q < 3; q++) {
            router.markRecovering(q);
        }
    }

    @Test
    void aRequestParkedWhileEveryLaneIsBeingReEstablishedWaits() {
        everyLaneRecovering();
        parked.park(request(0, 7));
        parked.lanesChanged();
        assertThat(runs).isEmpty();
        assertThat(parked.size()).isEqualTo(1);
    }

    @Test
    void itRunsOnTheFirstLaneThatComesBack() {
        everyLaneRecovering();
        parked.park(request(0, 7));
        router.recovered(2);
        parked.lanesChanged();
        assertThat(runs).containsExactly("7->2");
        assertThat(parked.size()).isZero();
    }

    @Test
    void aThirdLaneComingBackBetweenTheCallersLookAndItsParkIsNotMissed() {
        everyLaneRecovering();
        int meantFor = router.liveAfter(0); // the caller looked: lane 1, being re-established too
        assertThat(router.isRecovering(meantFor)).isTrue();
        router.recovered(2); // meanwhile another rail's dispatch thread ends lane 2's round...
        parked.lanesChanged(); // ...and drains, finding nothing parked yet
        parked.park(request(0, 7)); // lanes 0 and 1 are still being re-established: the old check saw only those two
        assertThat(runs).as("run at once on lane 2, not left for the next round's end").containsExactly("7->2");
    }

    @Test
    void aLaneComingBackWhileADrainPutsARequestBackIsNotMissed() {
        everyLaneRecovering();
        parked.park(request(0, 7)); // (asks "ending?" once: not the moment this test is about)
        AtomicInteger calls = new AtomicInteger();
        duringDrain = () -> {
            if (calls.incrementAndGet() == 1) { // the drain took the request and found no lane live...
                router.recovered(1); // ...then lane 1's round ends on another thread...
                parked.lanesChanged(); // ...whose drain finds the queue empty
                runs.add("other drain saw " + parked.size());
            }
        };
        parked.lanesChanged();
        assertThat(runs).containsExactly("other drain saw 0", "7->1");
        assertThat(parked.size()).isZero();
    }

    @Test
    void withNoLaneLeftParkedRequestsFail() {
        everyLaneRecovering();
        parked.park(request(0, 7));
        parked.park(request(1, 8));
        for (int q = 0; q < 3; q++) {
            router.markDead(q);
        }
        parked.lanesChanged();
        assertThat(runs).containsExactlyInAnyOrder("7->-1", "8->-1");
    }
}
