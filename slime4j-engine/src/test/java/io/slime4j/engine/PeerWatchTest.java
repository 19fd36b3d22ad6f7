package io.slime4j.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.engine.directory.PeerRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PeerWatchTest {
    private static PeerRecord rec(String name, long inc) {
        return new PeerRecord(name, inc, "127.0.0.1:1000", "h", Map.of());
    }

    @Test
    void aPeerIsDroppedAtOnceWhenItsRecordShowsAnotherIncarnation() {
        PeerWatch w = new PeerWatch(10_000);
        w.connected("B", 0);
        assertThat(w.observe(Map.of("B", 7L), List.of(rec("B", 7)), 100)).isEmpty();
        assertThat(w.observe(Map.of("B", 7L), List.of(rec("B", 8)), 200)).containsOnlyKeys("B")
                .hasEntrySatisfying("B", r -> assertThat(r).contains("another incarnation"));
    }

    @Test
    void aMissingRecordDropsThePeerOnlyAfterAWholeLeaseWithoutIt() {
        PeerWatch w = new PeerWatch(10_000);
        w.connected("B", 0);
        assertThat(w.observe(Map.of("B", 7L), List.of(rec("B", 7)), 5_000)).isEmpty();
        assertThat(w.observe(Map.of("B", 7L), List.of(), 9_000)).isEmpty();      // a lost record, back soon
        assertThat(w.observe(Map.of("B", 7L), List.of(rec("B", 7)), 12_000)).isEmpty();
        assertThat(w.observe(Map.of("B", 7L), List.of(), 21_999)).isEmpty();
        assertThat(w.observe(Map.of("B", 7L), List.of(), 22_000)).containsOnlyKeys("B")
                .hasEntrySatisfying("B", r -> assertThat(r).contains("expired"));
    }

    @Test
    void timeTheDirectoryWasUnreachableNeverCountsAgainstAPeer() {
        PeerWatch w = new PeerWatch(10_000);
        w.connected("B", 0);
        assertThat(w.observe(Map.of("B", 7L), List.of(rec("B", 7)), 1_000)).isEmpty();
        w.directoryFailed(); // e.g. Redis down from 1 s to 30 s, back empty
        assertThat(w.observe(Map.of("B", 7L), List.of(), 30_000)).isEmpty();
        assertThat(w.observe(Map.of("B", 7L), List.of(rec("B", 7)), 33_000)).isEmpty(); // republished
        w.directoryFailed();
        assertThat(w.observe(Map.of("B", 7L), List.of(), 50_000)).isEmpty();
        assertThat(w.observe(Map.of("B", 7L), List.of(), 60_000)).containsOnlyKeys("B"); // really gone
    }

    @Test
    void aFreshConnectionCountsAsSeenAndForgottenPeersStartOver() {
        PeerWatch w = new PeerWatch(1_000);
        w.connected("B", 50_000);
        assertThat(w.observe(Map.of("B", 7L), List.of(), 50_500)).isEmpty();
        w.forget("B");
        w.connected("B", 60_000);
        assertThat(w.observe(Map.of("B", 7L), List.of(), 60_999)).isEmpty();
        assertThat(w.observe(Map.of("B", 7L), List.of(), 61_000)).containsOnlyKeys("B");
    }
}
