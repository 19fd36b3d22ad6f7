package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class OutboundStreamTest {
    private final OutboundStream stream = new OutboundStream(64, -3, (s, now) -> { });

    @Test
    void takesConsecutivePsnsAcrossTheWrapUntilTheWindowIsFull() {
        for (int i = 0; i < 64; i++) {
            assertThat(stream.hasRoom()).isTrue();
            assertThat(stream.claim(TYPE_SEND, F_FIRST).psn).isEqualTo(-3 + i);
        }
        assertThat(stream.hasRoom()).as("window full").isFalse();
        assertThat(stream.inFlight()).isEqualTo(64);
        assertThat(stream.inWindow(-3)).isTrue();
        assertThat(stream.inWindow(60)).isTrue();
        assertThat(stream.inWindow(61)).as("not sent yet").isFalse();

        stream.advanceTo(-2);
        assertThat(stream.hasRoom()).as("one acknowledged: room for one").isTrue();
        assertThat(stream.inWindow(-3)).isFalse();
    }

    @Test
    void recyclesTheSegmentOfAPsnAWindowEarlier() {
        SendSegment first = stream.claim(TYPE_WRITE, F_LAST);
        first.sacked = true;
        for (int i = 1; i < 64; i++) {
            stream.claim(TYPE_WRITE, 0);
        }
        stream.advanceTo(-3 + 64);
        SendSegment again = stream.claim(TYPE_SEND, F_FIRST);
        assertThat(again).isSameAs(first);
        assertThat(again.psn).isEqualTo(61);
        assertThat(again.sacked).as("reset").isFalse();
        assertThat(again.type).isEqualTo(TYPE_SEND);
    }

    @Test
    void countsThePipeOnceForEachSegmentOnTheWire() {
        SendSegment a = stream.claim(TYPE_WRITE, 0);
        SendSegment b = stream.claim(TYPE_WRITE, 0);
        stream.enterPipe(a);
        stream.enterPipe(a);
        stream.enterPipe(b);
        assertThat(stream.pipe()).isEqualTo(2);
        stream.leavePipe(a);
        stream.leavePipe(a);
        assertThat(stream.pipe()).isEqualTo(1);
    }

    @Test
    void thePeerWindowLimitsThePipeInBytesOnceThePeerAdvertisesOne() {
        int packet = 4096 + HEADER_LENGTH;
        int admitted = 0;
        while (stream.peerWindowAllows(packet)) {
            stream.enterPipe(stream.claim(TYPE_WRITE, 0));
            admitted++;
        }
        assertThat(admitted).as("the assumed window, rounded up to whole packets")
                .isEqualTo((int) ((OutboundStream.INITIAL_PEER_WINDOW_BYTES + packet - 1) / packet));
        stream.onWindowUpdate(0);
        assertThat(stream.peerWindowAllows(packet)).as("0 means not said").isFalse();
        stream.onWindowUpdate(1 << 20);
        assertThat(stream.peerWindowAllows(packet)).isTrue();
    }

    @Test
    void queuesASegmentForRetransmissionOnceUntilItIsTaken() {
        SendSegment a = stream.claim(TYPE_WRITE, 0);
        stream.queueRetransmit(a);
        stream.queueRetransmit(a);
        assertThat(stream.pollRetransmit()).isSameAs(a);
        assertThat(a.queuedForRetransmit).isFalse();
        assertThat(stream.pollRetransmit()).isNull();
    }

    @Test
    void haltingCancelsEveryTimerAndEmptiesTheStream() {
        TimerWheel timers = new TimerWheel(1_000, 64, 0);
        SendSegment a = stream.claim(TYPE_WRITE, 0);
        SendSegment b = stream.claim(TYPE_WRITE, 0);
        stream.enterPipe(a);
        timers.schedule(a, 10_000);
        timers.schedule(b, 20_000);
        stream.queueRetransmit(b);
        stream.halt(timers);
        assertThat(a.isScheduled() || b.isScheduled()).isFalse();
        assertThat(stream.isEmpty()).isTrue();
        assertThat(stream.pipe()).isZero();
        assertThat(stream.hasRetransmits()).isFalse();
    }

    @Test
    void rejectsAWindowThatIsNotAPowerOfTwo() {
        assertThatThrownBy(() -> new OutboundStream(100, 0, (s, now) -> { }))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
