package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a waiter spins: armed at first, disarmed by a wait that ended without its answer, armed again by one that got it. */
class WaiterSpinTest {
    @Test
    void armedAtFirstAndWhileWaitsGetWhatTheyWaitFor() {
        WaiterSpin s = new WaiterSpin();
        assertThat(s.armed()).isTrue();
        s.waitEnded(true);
        assertThat(s.armed()).isTrue();
    }

    @Test
    void aWaitThatEndedWithoutItsAnswerDisarmsItAndTheNextThatGetsItsAnswerArmsItAgain() {
        WaiterSpin s = new WaiterSpin();
        s.waitEnded(false);
        assertThat(s.armed()).isFalse();
        s.waitEnded(false);
        assertThat(s.armed()).isFalse();
        s.waitEnded(true);
        assertThat(s.armed()).isTrue();
    }
}
