package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AimdCongestionControlTest {
    /** The peer's advertised window in packets, read by the congestion control on each loss. */
    private int peerWindow;
    private final AimdCongestionControl cc = new AimdCongestionControl(32, 1024, () -> peerWindow);

    @Test
    void slowStartGrowsByEachPacketAckedUpToTheWindowLimit() {
        assertThat(cc.allows(31)).isTrue();
        assertThat(cc.allows(32)).as("window full").isFalse();
        cc.onAck(32, 32);
        assertThat(cc.window()).isEqualTo(64);
        cc.onAck(5000, 100);
        assertThat(cc.window()).as("never beyond the send window").isEqualTo(1024);
    }

    @Test
    void aLossHalvesTheWindowOncePerRecoveryEpisodeThenGrowthIsLinear() {
        cc.onAck(32, 32); // 64
        cc.onLoss(100);
        assertThat(cc.window()).isEqualTo(32);
        cc.onLoss(101);
        assertThat(cc.window()).as("same episode: no second cut").isEqualTo(32);
        cc.onAck(32, 90);
        assertThat(cc.inRecovery()).isTrue();
        assertThat(cc.window()).as("congestion avoidance: about one per window").isEqualTo(33);
        cc.onAck(1, 100);
        assertThat(cc.inRecovery()).isFalse();
        cc.onLoss(200);
        assertThat(cc.window()).as("a new episode cuts again").isLessThan(20);
    }

    @Test
    void aTimeoutRestartsFromTheFloorAndTheFloorHoldsUnderRandomLoss() {
        cc.onTimeout(5, 40);
        assertThat(cc.window()).isEqualTo(AimdCongestionControl.MIN_CWND);
        for (int i = 0; i < 10; i++) {
            cc.onAck(1, 41 + i);
            cc.onLoss(60 + i);
        }
        assertThat(cc.window()).isGreaterThanOrEqualTo(AimdCongestionControl.MIN_CWND);
        assertThat(cc.allows(AimdCongestionControl.MIN_CWND - 1)).isTrue();
    }

    @Test
    void aTimeoutOfASegmentSentBeforeTheCurrentRecoveryDoesNotCutAgain() {
        cc.onTimeout(5, 40);
        cc.onAck(16, 20); // still recovering (20 is before the recovery point 40)
        double w = cc.window();
        cc.onTimeout(30, 50); // PSN 30 was sent before recovery point 40
        assertThat(cc.window()).isEqualTo(w);
        cc.onTimeout(45, 50);
        assertThat(cc.window()).isEqualTo(AimdCongestionControl.MIN_CWND);
    }

    @Test
    void lossFromAcksNeverCutsBelowAQuarterOfThePeersWindowWhileATimeoutStillRestartsFromTheFloor() {
        peerWindow = 800; // loss floor 200
        cc.onAck(32 + 400, 10); // slow start: 464
        for (int i = 0; i < 20; i++) { // a loss in every round trip, as 5% random drop gives
            cc.onLoss(100 + i * 10);
            cc.onAck(1, 100 + i * 10); // the episode ends
        }
        assertThat(cc.window()).as("halved to the loss floor, not below").isBetween(200.0, 202.0);
        assertThat(cc.allows(199)).isTrue();

        cc.onTimeout(400, 500);
        assertThat(cc.window()).as("the ACK clock stopped: from the floor").isEqualTo(AimdCongestionControl.MIN_CWND);
        cc.onAck(1, 500);
        cc.onLoss(600);
        assertThat(cc.window()).as("a loss does not raise a window below the loss floor").isLessThan(200);
        cc.onAck(300, 600);
        assertThat(cc.window()).as("slow start back up to the threshold, at least the loss floor").isGreaterThan(200);

        peerWindow = 20; // a small peer: the loss floor is MIN_CWND
        assertThat(cc.lossFloor()).isEqualTo(AimdCongestionControl.MIN_CWND);
        peerWindow = 1 << 20;
        assertThat(cc.lossFloor()).as("never beyond the send window").isEqualTo(1024);
    }
}
