package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.wire.WireAddress;
import io.slime4j.wire.inproc.InprocAddress;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The coalescing buffer on its own: frames in, datagrams out to a sink that records them. */
class CoalescerTest {
    private static final int CAPACITY = 1472; // a 1500-byte path's datagram
    private final WireAddress peerA = new InprocAddress("a");
    private final WireAddress peerB = new InprocAddress("b");
    private final Arena arena = Arena.ofAuto();
    private final List<Datagram> sent = new ArrayList<>();
    private final List<Object> framesSent = new ArrayList<>();
    private final List<Object> framesBundled = new ArrayList<>();
    private boolean wireAccepts = true;

    private record Datagram(WireAddress to, byte[] bytes, boolean priority) {
        boolean isBundle() {
            return bytes[1] == HeaderFlyweight.TYPE_BUNDLE;
        }
    }

    private final Coalescer.Sink sink = new Coalescer.Sink() {
        @Override
        public boolean sendDatagram(WireAddress to, MemorySegment datagram, int length, boolean priority) {
            sent.add(new Datagram(to, datagram.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), priority));
            return wireAccepts;
        }

        @Override
        public void frameSent(Object tag, int length, boolean ok, boolean bundled) {
            if (ok) {
                framesSent.add(tag);
                if (bundled) {
                    framesBundled.add(tag);
                }
            }
        }
    };

    private final Coalescer coalescer = new Coalescer(sink, CAPACITY, 2048);

    /** A packet of {@code length} bytes whose every byte is {@code fill}. */
    private MemorySegment frame(int length, int fill) {
        MemorySegment s = arena.allocate(length);
        s.fill((byte) fill);
        return s;
    }

    private void append(WireAddress to, String tag, int length, int fill) {
        coalescer.append(to, false, tag, frame(length, fill), length, null, 0, 0);
    }

    /** The frames of a recorded bundle, split as the receiver does. */
    private List<byte[]> framesOf(Datagram d) {
        List<byte[]> out = new ArrayList<>();
        MemorySegment s = MemorySegment.ofArray(d.bytes());
        CounterSet counters = new CounterSet();
        new BundleSplitter(CAPACITY, counters).split(s, d.bytes().length, d.to(),
                (f, len, from) -> out.add(f.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE)));
        assertThat(counters.get(SoftCounter.BAD_BUNDLES)).isZero();
        return out;
    }

    @Test
    void framesForTwoPeersLeaveAsOneBundlePerPeerAtTheEndOfTheTurn() {
        append(peerA, "a1", 64, 1);
        append(peerB, "b1", 100, 2);
        append(peerA, "a2", 96, 3);
        append(peerB, "b2", 64, 4);
        append(peerA, "a3", 200, 5);
        assertThat(sent).as("nothing leaves before the end of the turn").isEmpty();
        assertThat(coalescer.heldFrames()).isEqualTo(5);

        coalescer.flushAll();

        assertThat(sent).hasSize(2);
        assertThat(coalescer.heldFrames()).isZero();
        Datagram toA = sent.stream().filter(d -> d.to().equals(peerA)).findFirst().orElseThrow();
        Datagram toB = sent.stream().filter(d -> d.to().equals(peerB)).findFirst().orElseThrow();
        assertThat(toA.isBundle()).isTrue();
        assertThat(framesOf(toA)).extracting(f -> f.length).containsExactly(64, 96, 200);
        assertThat(framesOf(toA)).extracting(f -> (int) f[0]).containsExactly(1, 3, 5);
        assertThat(framesOf(toB)).extracting(f -> f.length).containsExactly(100, 64);
        assertThat(toA.bytes().length).isEqualTo(8 + 3 * 4 + 64 + 96 + 200);
        assertThat(framesSent).containsExactlyInAnyOrder("a1", "a2", "a3", "b1", "b2");
        assertThat(framesBundled).hasSize(5);
    }

    @Test
    void aLoneFrameLeavesBareExactlyAsThePacketItWouldHaveBeen() {
        append(peerA, "a1", 80, 7);
        coalescer.flushAll();
        assertThat(sent).hasSize(1);
        assertThat(sent.get(0).bytes()).hasSize(80).containsOnly((byte) 7);
        assertThat(framesBundled).as("not counted as coalesced").isEmpty();
        assertThat(framesSent).containsExactly("a1");
    }

    @Test
    void aBundleNeverExceedsTheCapacityAndTheFrameThatDoesNotFitStartsTheNextOne() {
        // 8 + 2 × (4 + 700) = 1416 bytes; a third frame of 700 would make 2120 > 1472
        append(peerA, "1", 700, 1);
        append(peerA, "2", 700, 2);
        assertThat(sent).isEmpty();
        append(peerA, "3", 700, 3);
        assertThat(sent).as("the full bundle left to make room").hasSize(1);
        assertThat(sent.get(0).bytes().length).isEqualTo(1416).isLessThanOrEqualTo(CAPACITY);
        assertThat(framesOf(sent.get(0))).hasSize(2);

        append(peerA, "4", 1472 - 8 - 8 - 700, 4); // exactly fills the second bundle to the capacity
        coalescer.flushAll();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(1).bytes().length).isEqualTo(CAPACITY);
        assertThat(framesOf(sent.get(1))).extracting(f -> (int) f[0]).containsExactly(3, 4);
    }

    @Test
    void aFrameThatAloneExceedsTheSpaceIsNotCoalescedAndIsRefusedIfAppended() {
        int limit = CAPACITY - 8 - 8 - HeaderFlyweight.HEADER_LENGTH; // room for a second, bare header
        assertThat(coalescer.accepts(limit)).isTrue();
        assertThat(coalescer.accepts(limit + 1)).isFalse();
        assertThat(coalescer.accepts(CAPACITY)).isFalse();
        assertThat(coalescer.accepts(HeaderFlyweight.HEADER_LENGTH - 1)).as("not even a packet").isFalse();
        assertThatThrownBy(() -> append(peerA, "big", CAPACITY, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not coalesced");
        assertThat(coalescer.heldFrames()).isZero();
    }

    @Test
    void flushingOnePeerAndChannelLetsOutOnlyWhatIsHeldForIt() {
        append(peerA, "a1", 64, 1);
        append(peerA, "a2", 64, 2);
        coalescer.append(peerA, true, "ack", frame(72, 9), 72, null, 0, 0);
        append(peerB, "b1", 64, 3);

        coalescer.flush(peerA, false); // a packet that is not coalesced is about to go to a's data channel

        assertThat(sent).hasSize(1);
        assertThat(sent.get(0).to()).isEqualTo(peerA);
        assertThat(sent.get(0).priority()).isFalse();
        assertThat(framesOf(sent.get(0))).hasSize(2);
        assertThat(coalescer.heldFrames()).as("a's priority frame and b's frame wait for the turn's end").isEqualTo(2);

        coalescer.flushAll();
        assertThat(sent).hasSize(3);
        assertThat(sent.stream().filter(Datagram::priority).count()).isEqualTo(1);
    }

    @Test
    void atTheEndOfTheTurnThePriorityChannelLeavesFirstWhateverWasOpenedFirst() {
        coalescer.append(peerA, true, "first", frame(64, 3), 64, null, 0, 0); // a stream's first packet
        append(peerA, "a1", 64, 1); // the packets after it, on the data channel
        append(peerB, "b1", 64, 2);
        append(peerA, "a2", 64, 4);
        coalescer.append(peerB, true, "ack", frame(64, 5), 64, null, 0, 0); // opened last

        coalescer.flushAll();

        assertThat(sent).hasSize(4);
        assertThat(sent).extracting(Datagram::priority).containsExactly(true, true, false, false);
        assertThat(sent.get(2).to()).as("then the data channels in the order they were opened").isEqualTo(peerA);
    }

    @Test
    void aPayloadFromRegisteredMemoryIsCopiedBehindItsHeader() {
        MemorySegment header = frame(64, 1);
        MemorySegment region = arena.allocate(100);
        for (int i = 0; i < 100; i++) {
            region.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        coalescer.append(peerA, false, "w1", header, 64, region, 10, 32);
        append(peerA, "a2", 64, 2);
        coalescer.flushAll();
        byte[] first = framesOf(sent.get(0)).get(0);
        assertThat(first).hasSize(96);
        assertThat(first[63]).isEqualTo((byte) 1);
        assertThat(first[64]).isEqualTo((byte) 10);
        assertThat(first[95]).isEqualTo((byte) 41);
    }

    @Test
    void moreOpenPeersThanSlotsLetTheOldestLeaveEarlyAndNothingIsLost() {
        for (int i = 0; i < Coalescer.SLOTS + 3; i++) {
            WireAddress to = new InprocAddress("p" + i);
            append(to, "x" + i, 64, i);
            append(to, "y" + i, 64, i);
        }
        coalescer.flushAll();
        assertThat(framesSent).hasSize(2 * (Coalescer.SLOTS + 3));
        assertThat(sent).hasSize(Coalescer.SLOTS + 3);
        assertThat(sent).allMatch(Datagram::isBundle);
    }

    @Test
    void aBundleTheWireRefusesReportsEachOfItsFramesAsNotSent() {
        wireAccepts = false;
        append(peerA, "a1", 64, 1);
        append(peerA, "a2", 64, 2);
        coalescer.flushAll();
        assertThat(sent).hasSize(1);
        assertThat(framesSent).isEmpty();
        assertThat(coalescer.heldFrames()).isZero();
    }
}
