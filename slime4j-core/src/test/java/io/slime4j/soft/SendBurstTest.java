package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SendBurstTest {
    private static final int UDP_MAX = 65_507;

    @Test
    void atAnEthernetMtuTheBurstIsTheEightWholeGsoRunsOfOneBatchedCall() {
        assertThat(SendBurst.packets(1_472, UDP_MAX)).isEqualTo(8 * 44); // runs of 44
    }

    @Test
    void atTheVerbsDefaultMtuAndAtJumboFramesTheBurstIsEightRunsToo() {
        assertThat(SendBurst.packets(4_096 + 64, UDP_MAX)).isEqualTo(8 * 15);
        assertThat(SendBurst.packets(9_000 + 64, UDP_MAX)).isEqualTo(70); // runs of 7: 64 packets at least
    }

    @Test
    void packetsTooLargeToBatchKeepTheBurstOfSixtyFour() {
        assertThat(SendBurst.packets(61_504, UDP_MAX)).isEqualTo(64); // loopback, 60 KiB payload
        assertThat(SendBurst.packets(40_000, UDP_MAX)).isEqualTo(64);
    }

    @Test
    void everyBurstIsAWholeNumberOfRunsAtLeastEightAndAtLeastSixtyFourPackets() {
        for (int packet = 65; packet <= UDP_MAX; packet += 97) {
            int run = Math.min(64, UDP_MAX / packet);
            int burst = SendBurst.packets(packet, UDP_MAX);
            assertThat(burst).as("packet %d", packet).isGreaterThanOrEqualTo(64);
            if (run >= 2) {
                assertThat(burst % run).as("packet %d", packet).isZero();
                assertThat(burst).as("packet %d", packet).isGreaterThanOrEqualTo(8 * run)
                        .isLessThan(Math.max(8 * run, 64 + run) + 1);
            }
        }
    }

    @Test
    void tinyPacketsAreCappedAtTheKernelsSixtyFourSegmentsPerRun() {
        assertThat(SendBurst.packets(100, UDP_MAX)).isEqualTo(8 * 64);
    }

    @Test
    void aPacketSizeThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> SendBurst.packets(0, UDP_MAX)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("packetBytes");
    }
}
