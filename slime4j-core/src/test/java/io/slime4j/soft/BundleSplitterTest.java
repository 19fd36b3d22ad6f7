package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.wire.WireAddress;
import io.slime4j.wire.inproc.InprocAddress;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bundle splitter fed well-formed and hostile datagrams: drops are counted, nothing throws. */
class BundleSplitterTest {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final WireAddress FROM = new InprocAddress("peer");
    private final CounterSet counters = new CounterSet();
    private final BundleSplitter splitter = new BundleSplitter(4096, counters);
    private final List<byte[]> frames = new ArrayList<>();
    private final MemorySegment datagram = Arena.ofAuto().allocate(4096);
    private int at;

    /** Starts a bundle that announces {@code count} frames. */
    private void bundle(int count) {
        datagram.set(ValueLayout.JAVA_BYTE, 0, HeaderFlyweight.VERSION);
        datagram.set(ValueLayout.JAVA_BYTE, 1, (byte) HeaderFlyweight.TYPE_BUNDLE);
        datagram.set(INT, 4, count);
        at = Coalescer.BUNDLE_HEADER_LENGTH;
    }

    /** Appends a frame prefix claiming {@code claimed} bytes, followed by {@code actual} bytes of {@code fill}. */
    private void frame(int claimed, int actual, int fill) {
        datagram.set(INT, at, claimed);
        at += 4;
        datagram.asSlice(at, actual).fill((byte) fill);
        at += actual;
    }

    private int split(int length) {
        return splitter.split(datagram, length, FROM,
                (f, len, from) -> frames.add(f.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE)));
    }

    private long dropped() {
        return counters.get(SoftCounter.BAD_BUNDLES);
    }

    @Test
    void aWellFormedBundleIsHandedOverFrameByFrameInOrder() {
        bundle(3);
        frame(64, 64, 1);
        frame(100, 100, 2);
        frame(72, 72, 3);
        assertThat(BundleSplitter.isBundle(datagram, at)).isTrue();
        assertThat(split(at)).isEqualTo(3);
        assertThat(frames).extracting(f -> f.length).containsExactly(64, 100, 72);
        assertThat(frames).extracting(f -> (int) f[0]).containsExactly(1, 2, 3);
        assertThat(dropped()).isZero();
        assertThat(counters.get(SoftCounter.BUNDLES_RECEIVED)).isEqualTo(1);
    }

    @Test
    void aFrameOfLengthZeroEndsTheDatagramAfterTheFramesBeforeIt() {
        bundle(3);
        frame(64, 64, 1);
        frame(0, 0, 0);
        frame(64, 64, 3);
        assertThat(split(at)).isEqualTo(1);
        assertThat(frames).hasSize(1);
        assertThat(dropped()).isEqualTo(1);
    }

    @Test
    void aFrameShorterThanAPacketHeaderIsDropped() {
        bundle(1);
        frame(63, 63, 1);
        assertThat(split(at)).isZero();
        assertThat(dropped()).isEqualTo(1);
    }

    @Test
    void aLengthPastTheEndOfTheDatagramIsNeverReadPast() {
        bundle(2);
        frame(64, 64, 1);
        frame(200, 100, 2); // claims 200, the datagram ends after 100
        datagram.asSlice(at, 200).fill((byte) 9); // bytes beyond the datagram's length: must not be read
        assertThat(split(at)).isEqualTo(1);
        assertThat(frames.get(0)).containsOnly((byte) 1);
        assertThat(dropped()).isEqualTo(1);

        bundle(1);
        frame(Integer.MAX_VALUE, 64, 1);
        assertThat(split(at)).isZero();
        bundle(1);
        frame(-5, 64, 1);
        assertThat(split(at)).isZero();
        assertThat(dropped()).isEqualTo(3);
    }

    @Test
    void aTruncatedHeaderOrLengthPrefixIsDropped() {
        bundle(2);
        assertThat(split(5)).as("cut inside the bundle header").isZero();
        assertThat(split(0)).isZero();
        bundle(2);
        frame(64, 64, 1);
        datagram.set(ValueLayout.JAVA_BYTE, at, (byte) 64);
        assertThat(split(at + 2)).as("cut inside the second length prefix").isEqualTo(1);
        assertThat(dropped()).isEqualTo(3);
    }

    @Test
    void aFrameCountOfZeroOrNegativeOrMoreThanTheDatagramHoldsIsDropped() {
        bundle(0);
        frame(64, 64, 1);
        assertThat(split(at)).isZero();
        bundle(-1);
        frame(64, 64, 1);
        assertThat(split(at)).isZero();
        bundle(1_000_000);
        frame(64, 64, 1);
        assertThat(split(at)).as("the frame is there, the rest is not").isEqualTo(1);
        assertThat(dropped()).isEqualTo(3);
    }

    @Test
    void bytesLeftOverAfterTheAnnouncedFramesAreCounted() {
        bundle(1);
        frame(64, 64, 1);
        frame(64, 64, 2); // not announced
        assertThat(split(at)).isEqualTo(1);
        assertThat(dropped()).isEqualTo(1);
    }

    @Test
    void aLengthLargerThanTheSegmentIsDroppedNotRead() {
        bundle(1);
        frame(64, 64, 1);
        assertThat(split((int) datagram.byteSize() + 1)).isZero();
        assertThat(dropped()).isEqualTo(1);
    }

    @Test
    void randomGarbageNeverThrows() {
        java.util.Random random = new java.util.Random(19);
        for (int i = 0; i < 2000; i++) {
            int length = random.nextInt(300);
            for (int j = 0; j < length; j++) {
                datagram.set(ValueLayout.JAVA_BYTE, j, (byte) random.nextInt(256));
            }
            datagram.set(ValueLayout.JAVA_BYTE, 0, HeaderFlyweight.VERSION);
            datagram.set(ValueLayout.JAVA_BYTE, 1, (byte) HeaderFlyweight.TYPE_BUNDLE);
            if (random.nextBoolean() && length >= 8) {
                datagram.set(INT, 4, 1 + random.nextInt(3));
            }
            split(length);
        }
        assertThat(counters.get(SoftCounter.BUNDLES_RECEIVED)).isEqualTo(2000);
        assertThat(dropped()).isPositive();
        assertThat(frames).allMatch(f -> f.length >= HeaderFlyweight.HEADER_LENGTH);
    }
}
