package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.AckScheduler.Due;
import org.junit.jupiter.api.Test;

/** ACK timing with a clock the test sets. */
class AckSchedulerTest {
    private static final long DELAY = 50_000;
    private static final int PACKET = 4160;
    private final AckScheduler acks = new AckScheduler(DELAY, 32, PACKET, 256 * 1024, 65_536);
    private long now = 7_000_000;

    @Test
    void anAckWaitsForTheDelaySoThatDataGoingBackCanCarryIt() {
        acks.onAccepted(now);
        assertThat(acks.due(now, false)).isEqualTo(Due.NONE);
        now += DELAY - 1;
        assertThat(acks.due(now, false)).isEqualTo(Due.NONE);
        now += 1;
        assertThat(acks.due(now, false)).isEqualTo(Due.ACK);

        acks.onAccepted(now);
        acks.onCarried(false);
        now += 10 * DELAY;
        assertThat(acks.due(now, false)).as("carried on a data packet instead").isEqualTo(Due.NONE);
    }

    @Test
    void onABusyPollingDeviceAnAckAskedForAtOnceWaitsForTheNextCycleSoThatTheReplyCanCarryIt() {
        AckScheduler busy = new AckScheduler(DELAY, 32, PACKET, 256 * 1024, 65_536, () -> true);
        busy.onAccepted(now);
        busy.onAckRequested(now);
        assertThat(busy.owesAck()).isTrue();
        assertThat(busy.due(now, false)).as("not in the cycle that received the request").isEqualTo(Due.NONE);
        assertThat(busy.due(now + 1, false)).as("in the next cycle, long before the delay").isEqualTo(Due.ACK);

        busy.onCarried(false); // the reply, posted before the next cycle, carried it
        assertThat(busy.due(now + 1, false)).isEqualTo(Due.NONE);
        assertThat(busy.owesAck()).isFalse();

        now += DELAY;
        busy.onAccepted(now);
        busy.onAckRequested(now);
        busy.onAckRequested(now + 5); // a second request in a later cycle does not move the first one's turn
        assertThat(busy.due(now + 5, false)).isEqualTo(Due.ACK);
        busy.onSent(256 * 1024, PACKET);
        assertThat(busy.due(now + 6, false)).as("sent: nothing owed").isEqualTo(Due.NONE);
    }

    @Test
    void theMiddleOfAMessageWaitsForTheDelayButItsLastPacketIsAcknowledgedAtOnce() {
        acks.onAccepted(now); // a middle packet: delayed (the threshold here is two packets)
        now += DELAY / 2;
        assertThat(acks.due(now, false)).isEqualTo(Due.NONE);
        acks.onAckRequested(now); // the next packet, the last, asks for the ACK
        assertThat(acks.due(now, false)).as("no wait for the rest of the delay").isEqualTo(Due.ACK);
        assertThat(acks.owesAck()).isTrue();
    }

    @Test
    void aRequestedAckThatADataPacketCarriedIsNotSentAgain() {
        acks.onAccepted(now);
        acks.onAckRequested(now);
        acks.onCarried(false);
        assertThat(acks.owesAck()).isFalse();
        now += 10 * DELAY;
        assertThat(acks.due(now, false)).isEqualTo(Due.NONE);
    }

    @Test
    void aDuplicateIsAnsweredAtOnce() {
        acks.onDuplicate(now);
        assertThat(acks.due(now, false)).isEqualTo(Due.ACK);
    }

    @Test
    void aDuplicateRightBehindAnAckWaitsForTheDelayOneLaterIsAnsweredAtOnce() {
        acks.onAccepted(now);
        acks.onAckRequested(now);
        assertThat(acks.due(now, false)).isEqualTo(Due.ACK);
        acks.onSent(1 << 20, PACKET);
        acks.scheduleRefresh(Due.ACK, now); // the ACK left now

        now += DELAY / 2;
        acks.onDuplicate(now); // a copy of a packet the ACK covered, right behind it
        assertThat(acks.due(now, false)).as("the ACK that just left cannot have been missed yet").isEqualTo(Due.NONE);
        assertThat(acks.owesAck()).isTrue();
        assertThat(acks.due(now + DELAY, false)).as("the delayed ACK answers it").isEqualTo(Due.ACK);
        acks.onSent(1 << 20, PACKET);
        acks.scheduleRefresh(Due.ACK, now + DELAY);

        now += 3 * DELAY;
        acks.onDuplicate(now); // long after the last ACK: the sender may have missed it
        assertThat(acks.due(now, false)).isEqualTo(Due.ACK);
    }

    @Test
    void aNewHoleIsReportedAtOnceAndACarriedAckDoesNotReplaceTheSack() {
        acks.onAccepted(now);
        acks.onNewHole();
        acks.onCarried(true);
        assertThat(acks.due(now, true)).isEqualTo(Due.ACK);
    }

    @Test
    void anAckGoesAfterEveryFewPacketsCountedInTheAdvertisedWindow() {
        // before any ACK: the peer's assumed 256 KiB in the largest (64 KiB) packets: every 2
        assertThat(acks.ackAfter()).isEqualTo(2);
        acks.onSent(1 << 30, PACKET);
        assertThat(acks.ackAfter()).as("ackEvery caps it").isEqualTo(32);
        acks.onSent(10 * PACKET, PACKET);
        assertThat(acks.ackAfter()).as("half a 10-packet window").isEqualTo(5);
        for (int i = 0; i < 4; i++) {
            acks.onAccepted(now);
        }
        assertThat(acks.due(now, false)).isEqualTo(Due.NONE);
        acks.onAccepted(now);
        assertThat(acks.due(now, false)).isEqualTo(Due.ACK);
    }

    @Test
    void whileHolesRemainTheLastAckIsRepeatedWithBackoff() {
        acks.onNewHole();
        acks.onAccepted(now);
        assertThat(acks.due(now, true)).isEqualTo(Due.ACK);
        acks.onSent(1 << 20, PACKET);
        acks.scheduleRefresh(Due.ACK, now);

        long interval = 4 * DELAY;
        for (int i = 0; i < 12; i++) {
            assertThat(acks.due(now + interval - 1, true)).as("refresh %d not early", i).isEqualTo(Due.NONE);
            now += interval;
            assertThat(acks.due(now, true)).isEqualTo(Due.SACK_REFRESH);
            assertThat(acks.due(now, false)).as("no holes: nothing to repeat").isEqualTo(Due.NONE);
            acks.onSent(1 << 20, PACKET);
            acks.scheduleRefresh(Due.SACK_REFRESH, now);
            interval = Math.min(interval * 2, AckScheduler.MAX_SACK_REFRESH_NANOS);
        }
        assertThat(interval).isEqualTo(AckScheduler.MAX_SACK_REFRESH_NANOS);
    }

    @Test
    void aDroppedPacketAheadAsksTheSenderToGoBackInTheNextAckOnly() {
        acks.onDroppedAhead();
        assertThat(acks.goBack()).isTrue();
        assertThat(acks.due(now, true)).isEqualTo(Due.ACK);
        acks.onCarried(true);
        assertThat(acks.due(now, true)).as("not replaced by a data packet").isEqualTo(Due.ACK);
        acks.onSent(1 << 20, PACKET);
        assertThat(acks.goBack()).isFalse();
    }

    @Test
    void windowsAreCountedInThePeersPacketsOnceOneArrived() {
        assertThat(acks.packetBytes()).isEqualTo(PACKET);
        acks.onPacketSize(1500);
        assertThat(acks.packetBytes()).isEqualTo(1500);
        acks.onPacketSize(900);
        assertThat(acks.packetBytes()).as("the largest seen").isEqualTo(1500);
    }
}
