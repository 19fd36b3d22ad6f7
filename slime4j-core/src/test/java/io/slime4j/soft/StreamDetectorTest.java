package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The stream detector with a clock the test moves: runs of drives that never blocked, the hold, a blocked drive. */
class StreamDetectorTest {
    private long now = 1_000_000_000L;
    private final StreamDetector streams = new StreamDetector(() -> now);

    @Test
    void aRunOfDrivesThatNeverBlockedMakesAStreamForTheHold() {
        for (int i = 1; i < StreamDetector.RUN; i++) {
            streams.driveEnded(false);
            assertThat(streams.streaming()).as("after %d", i).isFalse();
        }
        streams.driveEnded(false);
        assertThat(streams.streaming()).isTrue();
        now += StreamDetector.HOLD_NANOS - 1;
        assertThat(streams.streaming()).isTrue();
        now += 1;
        assertThat(streams.streaming()).as("the hold is over").isFalse();
        assertThat(streams.streaming()).isFalse();
    }

    @Test
    void aDriveThatBlockedStartsTheRunAgain() {
        for (int i = 1; i < StreamDetector.RUN; i++) {
            streams.driveEnded(false);
        }
        streams.driveEnded(true); // a round trip's waiter: it waited for its datagram
        for (int i = 1; i < StreamDetector.RUN; i++) {
            streams.driveEnded(false);
            assertThat(streams.streaming()).isFalse();
        }
        streams.driveEnded(false);
        assertThat(streams.streaming()).isTrue();
    }

    @Test
    void aRoundTripsWaitersThatFindTheirReplyThereNowAndThenMakeNoStream() {
        // a preempted waiter of a round trip finds its reply there already, one drive in five at random
        // (fixed seed): over a million drives, runs of four such drives in a row come about 1,600 times
        java.util.Random random = new java.util.Random(19);
        for (int i = 0; i < 1_000_000; i++) {
            streams.driveEnded(random.nextInt(5) != 0);
            now += 40_000; // a 40 µs round trip
            assertThat(streams.streaming()).as("drive %d", i).isFalse();
        }
    }

    @Test
    void aStreamSeenAgainDuringTheHoldRenewsIt() {
        for (int i = 0; i < StreamDetector.RUN; i++) {
            streams.driveEnded(false);
        }
        now += StreamDetector.HOLD_NANOS / 2;
        for (int i = 0; i < StreamDetector.RUN; i++) {
            streams.driveEnded(false);
        }
        now += StreamDetector.HOLD_NANOS / 2 + 1;
        assertThat(streams.streaming()).as("renewed half a hold ago").isTrue();
    }
}
