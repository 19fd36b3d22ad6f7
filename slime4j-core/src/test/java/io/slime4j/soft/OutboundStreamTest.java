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
        stream.onWindowUpdate(0, stream.nxt());
        assertThat(stream.peerWindowAllows(packet)).as("0 means not said").isFalse();
        stream.onWindowUpdate(1 << 20, stream.nxt());
        assertThat(stream.peerWindowAllows(packet)).isTrue();
    }

    @Test
    void onceThePeerSaidAWindowEachPacketInThePipeCountsAsTheLargestTheStreamSent() {
        OutboundStream big = new OutboundStream(4096, 0, (s, now) -> { });
        int full = (60 << 10) + HEADER_LENGTH;
        assertThat(sendWhileAllowed(big, full, 32)).as("before the peer said: full packets of the assumed window")
                .isEqualTo((int) ((OutboundStream.INITIAL_PEER_WINDOW_BYTES + full - 1) / full));
        int small = HEADER_LENGTH + 32;
        big.onWindowUpdate(100L * small, big.nxt()); // the peer counts its window in the largest packet it received
        assertThat(sendWhileAllowed(big, full, 32) + 5).as("the peer's window in the stream's 32-byte packets")
                .isEqualTo(100);
        assertThat(big.peerWindowPackets(full)).isEqualTo(100);
        big.onWindowUpdate(200L * small, big.nxt());
        int larger = big.nxt();
        assertThat(sendWhileAllowed(big, full, 32 + small)).as("a larger packet: full packets count again")
                .isEqualTo(1);
        big.onWindowUpdate(1 << 20, larger);
        assertThat(big.peerWindowAllows(full)).as("a window from an ACK short of the larger packet: 101 full packets")
                .isFalse();
        big.onWindowUpdate(1 << 20, larger + 1);
        assertThat(big.peerWindowAllows(full)).as("once an ACK covers it, each counts as 192 bytes").isTrue();
        assertThat(big.peerWindowPackets(full)).isEqualTo((1 << 20) / (small + 96));
    }

    /** Sends packets of {@code payload} bytes while the peer's window allows; how many went. */
    private static int sendWhileAllowed(OutboundStream stream, int full, int payload) {
        int sent = 0;
        while (stream.hasRoom() && stream.peerWindowAllows(full)) { // the stream's window bounds a broken count
            SendSegment s = stream.claim(TYPE_SEND, 0);
            s.payloadLength = payload;
            stream.sent(s, 0);
            sent++;
        }
        return sent;
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
