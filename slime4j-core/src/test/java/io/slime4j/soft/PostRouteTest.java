package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Who sends a posted request, and when: {@link PostRoute}'s table. */
class PostRouteTest {

    @Test
    void onABusyPollingDeviceOnlyAPostSayingMoreBehindOutstandingRequestsIsHeld() {
        assertThat(PostRoute.of(true, true, true, false, false)).isEqualTo(PostRoute.HOLD);
        assertThat(PostRoute.of(true, true, false, false, true)).as("a lone post: a round trip's").isEqualTo(PostRoute.RUN);
        assertThat(PostRoute.of(true, false, true, true, false)).isEqualTo(PostRoute.RUN);
        assertThat(PostRoute.of(true, false, false, false, false)).isEqualTo(PostRoute.RUN);
    }

    @Test
    void onADefaultDeviceAWaiterDrivingItMeansThePosterSendsWhateverThePostSays() {
        for (boolean more : new boolean[] {false, true}) {
            for (boolean behind : new boolean[] {false, true}) {
                for (boolean resting : new boolean[] {false, true}) {
                    assertThat(PostRoute.of(false, more, behind, true, resting)).isEqualTo(PostRoute.RUN);
                }
            }
        }
    }

    @Test
    void onADefaultDeviceWithNoWaiterDrivingARunningAgentSendsIt() {
        for (boolean more : new boolean[] {false, true}) {
            for (boolean behind : new boolean[] {false, true}) {
                assertThat(PostRoute.of(false, more, behind, false, false)).isEqualTo(PostRoute.AGENT);
            }
        }
    }

    @Test
    void onADefaultDeviceWhoseAgentRestsAStreamGoesToTheAgentAPostSayingMoreWaitsAndAnyOtherLeavesNow() {
        assertThat(PostRoute.of(false, false, true, false, true)).isEqualTo(PostRoute.AGENT_TAKES_STREAM);
        assertThat(PostRoute.of(false, true, true, false, true)).isEqualTo(PostRoute.AGENT_TAKES_STREAM);
        assertThat(PostRoute.of(false, true, false, false, true)).as("an eager-credit return").isEqualTo(PostRoute.HOLD);
        assertThat(PostRoute.of(false, false, false, false, true)).as("a round trip's reply").isEqualTo(PostRoute.RUN);
    }
}
