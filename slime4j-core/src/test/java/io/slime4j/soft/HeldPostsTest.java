package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When a poster on a busy-polling device may leave its request for the next cycle, and when it must run one. */
class HeldPostsTest {
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final HeldPosts held = new HeldPosts(clock::get);

    @Test
    void postsAreHeldUntilTheLimitAndThePostThatMakesItRuns() {
        for (int i = 1; i < HeldPosts.MAX_POSTS; i++) {
            assertThat(held.holdOrRing()).as("post %d", i).isFalse();
        }
        assertThat(held.held()).isEqualTo(HeldPosts.MAX_POSTS - 1);
        assertThat(held.holdOrRing()).as("the post that makes the limit").isTrue();
    }

    @Test
    void aPostAfterTheFirstHeldOneAgedRuns() {
        assertThat(held.holdOrRing()).isFalse();
        clock.addAndGet(HeldPosts.MAX_NANOS - 1);
        assertThat(held.holdOrRing()).as("younger than the bound").isFalse();
        clock.addAndGet(1);
        assertThat(held.holdOrRing()).as("the first is as old as the bound").isTrue();
    }

    @Test
    void aCycleSaysHowManyWereHeldForItAndAPostThatRangIsNotOne() {
        for (int i = 1; i < HeldPosts.MAX_POSTS; i++) {
            held.holdOrRing();
        }
        assertThat(held.holdOrRing()).as("the post that makes the limit").isTrue();
        assertThat(held.cycleBegan()).as("held for the cycle its poster runs").isEqualTo(HeldPosts.MAX_POSTS - 1);
        assertThat(held.cycleBegan()).as("none since").isZero();
    }

    @Test
    void aCycleTakesEverythingHeldAndTheCountAndAgeStartAgain() {
        assertThat(held.holdOrRing()).isFalse();
        clock.addAndGet(HeldPosts.MAX_NANOS * 10);
        held.cycleBegan();
        assertThat(held.held()).isZero();
        assertThat(held.holdOrRing()).as("the first after a cycle is held, however old the last batch").isFalse();
        clock.addAndGet(HeldPosts.MAX_NANOS / 2);
        assertThat(held.holdOrRing()).isFalse();
    }
}
