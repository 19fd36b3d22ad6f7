package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a waiter spins: armed at first, disarmed by a wait in which nothing came, armed again by anything that came. */
class WaiterSpinTest {
    @Test
    void armedAtFirstAndWhileWaitsAreEndedBySomethingInTheSpinOrAfterIt() {
        WaiterSpin s = new WaiterSpin();
        assertThat(s.armed()).isTrue();
        s.caught();
        assertThat(s.armed()).isTrue();
        s.firstBlockEnded(true); // the answer came after the spin: still worth spinning for the next
        assertThat(s.armed()).isTrue();
    }

    @Test
    void aWaitInWhichNothingCameDisarmsItAndTheNextWaitThatSomethingEndsArmsItAgain() {
        WaiterSpin s = new WaiterSpin();
        s.firstBlockEnded(false);
        assertThat(s.armed()).isFalse();
        s.firstBlockEnded(false);
        assertThat(s.armed()).isFalse();
        s.firstBlockEnded(true);
        assertThat(s.armed()).isTrue();
    }
}
