package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.wire.udp.Datagrams.Received;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the native backend adds: the gathering send of a header and a payload from two segments,
 * and its choice by {@link UdpConfig.Backend}. The build grants native access, so the backend must
 * be available here (fails rather than skips otherwise).
 */
@Timeout(20)
class NativeUdpSocketTest {
    private final UdpWire nativeWire = new UdpWire(UdpConfig.builder().backend(UdpConfig.Backend.NATIVE).build());
    private final UdpWire nioWire = new UdpWire(UdpConfig.builder().backend(UdpConfig.Backend.NIO).build());

    @BeforeAll
    static void nativeBackendAvailable() {
        assertThat(UdpConfig.Backend.nativeUnavailability()).as("native udp backend unavailable").isNull();
    }

    @AfterEach
    void closeWires() {
        nativeWire.close();
        nioWire.close();
    }

    @Test
    void theBackendIsTheOneConfiguredAndAutoMeansNativeWhenAvailable() {
        assertThat(nativeWire.bind("").backend()).isEqualTo(UdpConfig.Backend.NATIVE);
        assertThat(nioWire.bind("").backend()).isEqualTo(UdpConfig.Backend.NIO);
        assertThat(UdpConfig.Backend.AUTO.resolve()).isEqualTo(UdpConfig.Backend.NATIVE);
        assertThat(nativeWire.bind("").gathers()).isTrue();
        assertThat(nioWire.bind("").gathers()).isFalse();
    }

    @Test
    void aGatheredDatagramIsTheHeaderFollowedByThePayloadSliceByteExactAcrossBackends() {
        UdpPort sender = nativeWire.bind("");
        UdpPort nio = nioWire.bind("");
        UdpPort nat = nativeWire.bind("");
        nat.resolve(sender.localAddress().text());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = arena.allocate(64);
            header.copyFrom(MemorySegment.ofArray(Datagrams.bytes(64, 7)));
            MemorySegment payload = arena.allocate(100_000);
            payload.copyFrom(MemorySegment.ofArray(Datagrams.bytes(100_000, 3)));

            assertThat(sender.send(nio.localAddress(), header, 64, payload, 12_345, 40_000, false)).isTrue();
            assertThat(sender.send(nat.localAddress(), header, 64, payload, 99_000, 1_000, true)).isTrue();
            assertThat(sender.send(nat.localAddress(), header, 64, payload, 0, 0, false)).isTrue();

            byte[] expected = concat(Datagrams.bytes(64, 7), Arrays.copyOfRange(Datagrams.bytes(100_000, 3), 12_345,
                    52_345));
            List<Received> atNio = Datagrams.receive(nio, 1, 5_000);
            assertThat(atNio).hasSize(1);
            assertThat(atNio.get(0).bytes()).isEqualTo(expected);
            List<Received> atNative = Datagrams.receive(nat, 2, 5_000);
            assertThat(atNative).hasSize(2);
            assertThat(atNative.get(0).bytes()).isEqualTo(concat(Datagrams.bytes(64, 7),
                    Arrays.copyOfRange(Datagrams.bytes(100_000, 3), 99_000, 100_000)));
            assertThat(atNative.get(1).bytes()).isEqualTo(Datagrams.bytes(64, 7));
            assertThat(atNative.get(0).from()).isEqualTo(sender.localAddress());
        }
    }

    @Test
    void aGatheredSendOutsideItsSegmentsOrLargerThanADatagramIsRejected() {
        UdpPort a = nativeWire.bind("");
        UdpPort b = nativeWire.bind("");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = arena.allocate(64);
            MemorySegment payload = arena.allocate(70_000);
            assertThatThrownBy(() -> a.send(b.localAddress(), header, 64, payload, 69_000, 2_000, false))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload 69000+2000");
            assertThatThrownBy(() -> a.send(b.localAddress(), header, 64, payload, 0, 65_500, false))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 65507");
            assertThatThrownBy(() -> a.send(b.localAddress(), header, 65, payload, 0, 1, false))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(a.stats().datagramsSent()).isZero();
    }

    @Test
    void theNioBackendCopiesThePayloadBehindTheHeaderAndNeedsRoomForIt() {
        UdpPort a = nioWire.bind("");
        UdpPort b = nioWire.bind("");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packet = arena.allocate(1_000);
            packet.asSlice(0, 10).fill((byte) 1);
            MemorySegment payload = arena.allocate(500);
            payload.fill((byte) 2);
            assertThatThrownBy(() -> a.send(b.localAddress(), packet.asSlice(0, 10), 10, payload, 0, 500, false))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no room");

            assertThat(a.send(b.localAddress(), packet, 10, payload, 100, 400, false)).isTrue();

            List<Received> got = Datagrams.receive(b, 1, 5_000);
            assertThat(got).hasSize(1);
            byte[] expected = new byte[410];
            Arrays.fill(expected, 0, 10, (byte) 1);
            Arrays.fill(expected, 10, 410, (byte) 2);
            assertThat(got.get(0).bytes()).isEqualTo(expected);
        }
    }

    @Test
    void aClosedNativePortSendsNothingAndReceivesNothing() {
        UdpPort a = nativeWire.bind("");
        UdpPort b = nativeWire.bind("");
        b.close();
        a.close();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = arena.allocate(64);
            assertThat(a.send(b.localAddress(), header, 64, false)).isFalse();
            assertThat(a.send(b.localAddress(), header, 32, header, 32, 32, false)).isFalse();
        }
        assertThat(b.receive((p, l, f) -> { }, 16)).isZero();
        assertThat(a.stats().sendErrors()).isZero();
    }

    @Test
    void aPayloadInFreedMemoryIsRefusedNotRead() {
        UdpPort a = nativeWire.bind("");
        UdpPort b = nativeWire.bind("");
        MemorySegment header = Arena.ofAuto().allocate(64);
        Arena arena = Arena.ofShared();
        MemorySegment payload = arena.allocate(4096);
        arena.close();
        assertThatThrownBy(() -> a.send(b.localAddress(), header, 64, payload, 0, 4096, false))
                .isInstanceOf(IllegalStateException.class);
        assertThat(Datagrams.receiveOnce(b, 16)).isEmpty();
    }

    @Test
    void theLargestDatagramGathersAndALargerOneIsDroppedAndCountedAtTheReceiver() {
        UdpPort a = nativeWire.bind("");
        UdpPort small;
        try (UdpWire w = new UdpWire(UdpConfig.builder().backend(UdpConfig.Backend.NATIVE).maxDatagramSize(1024)
                .build())) {
            small = w.bind("");
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment header = arena.allocate(64);
                MemorySegment payload = arena.allocate(65_507);
                payload.set(ValueLayout.JAVA_BYTE, 65_442, (byte) 9);
                assertThat(a.send(small.localAddress(), header, 64, payload, 0, 960, false)).isTrue();
                assertThat(a.send(small.localAddress(), header, 64, payload, 0, 65_443, false)).isTrue();
                Datagrams.settle();
                List<Received> got = Datagrams.receive(small, 1, 5_000);
                assertThat(got).hasSize(1);
                assertThat(got.get(0).bytes()).hasSize(1024);
                Datagrams.settle();
                assertThat(Datagrams.receiveOnce(small, 16)).isEmpty();
                assertThat(small.stats().oversizeDrops()).isEqualTo(1);
            }
        }
    }

    /** A placing handler that places every datagram's payload at {@code offset} of {@code target}. */
    private static class Placing implements io.slime4j.wire.PlacingPacketHandler {
        final MemorySegment target;
        long offset;
        boolean accept = true;
        final List<byte[]> whole = new java.util.ArrayList<>();
        final List<byte[]> placedHeaders = new java.util.ArrayList<>();
        final List<Integer> placedLengths = new java.util.ArrayList<>();
        int predictions;
        long predictStep = -1; // predict the next payload this far on, up to 1000 bytes

        Placing(MemorySegment target, long offset) {
            this.target = target;
            this.offset = offset;
        }

        @Override
        public int headerLength() {
            return 16;
        }

        @Override
        public boolean place(MemorySegment header, int length, io.slime4j.wire.WireAddress from) {
            return accept;
        }

        @Override
        public MemorySegment placementSegment() {
            return target;
        }

        @Override
        public long placementOffset() {
            return offset;
        }

        @Override
        public void onPlacedPacket(MemorySegment packet, int length, io.slime4j.wire.WireAddress from) {
            placedHeaders.add(packet.asSlice(0, 16).toArray(ValueLayout.JAVA_BYTE));
            placedLengths.add(length);
        }

        /** Predicts the place after the last one while no more than {@code predictions} were placed. */
        @Override
        public boolean predictNext() {
            if (predictStep < 0 || placedLengths.size() > predictions) {
                return false;
            }
            offset = predictStep * placedLengths.size();
            return true;
        }

        @Override
        public int predictedPayloadLength() {
            return 1_000;
        }

        @Override
        public void onPacket(MemorySegment packet, int length, io.slime4j.wire.WireAddress from) {
            whole.add(packet.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
        }

        int drain(UdpPort port, int n) {
            int got = 0;
            for (int i = 0; i < 500 && got < n; i++) {
                got += port.receive(this, n - got);
                if (got < n) {
                    Datagrams.settle();
                }
            }
            return got;
        }
    }

    @Test
    void aPlacingHandlerGetsThePayloadAtItsPlaceAndTheHeaderInTheBuffer() {
        UdpPort a = nativeWire.bind("");
        UdpPort b = nativeWire.bind("");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packet = arena.allocate(1_016);
            packet.copyFrom(MemorySegment.ofArray(Datagrams.bytes(1_016, 21)));
            MemorySegment target = arena.allocate(5_000);
            Placing h = new Placing(target, 3_000);

            assertThat(a.send(b.localAddress(), packet, 1_016, false)).isTrue();
            assertThat(h.drain(b, 1)).isEqualTo(1);

            assertThat(h.whole).isEmpty();
            assertThat(h.placedLengths).containsExactly(1_016);
            assertThat(h.placedHeaders.get(0)).isEqualTo(Arrays.copyOf(Datagrams.bytes(1_016, 21), 16));
            assertThat(target.asSlice(3_000, 1_000).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(Arrays.copyOfRange(Datagrams.bytes(1_016, 21), 16, 1_016));
            assertThat(target.get(ValueLayout.JAVA_BYTE, 2_999)).isZero();
            assertThat(target.get(ValueLayout.JAVA_BYTE, 4_000)).isZero();
            assertThat(b.stats().placedDatagramsReceived()).isEqualTo(1);
            assertThat(b.stats().datagramsReceived()).isEqualTo(1);
        }
    }

    @Test
    void aDeclinedOrHeaderOnlyDatagramArrivesWholeAndAPlacementOutsideTheTargetIsCountedNotWritten() {
        UdpPort a = nativeWire.bind("");
        UdpPort b = nativeWire.bind("");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packet = arena.allocate(1_016);
            packet.copyFrom(MemorySegment.ofArray(Datagrams.bytes(1_016, 9)));
            MemorySegment target = arena.allocate(1_500);
            Placing h = new Placing(target, 0);

            h.accept = false;
            assertThat(a.send(b.localAddress(), packet, 1_016, false)).isTrue();
            assertThat(h.drain(b, 1)).isEqualTo(1);
            h.accept = true;
            assertThat(a.send(b.localAddress(), packet, 16, false)).isTrue(); // nothing to place
            assertThat(h.drain(b, 1)).isEqualTo(1);
            assertThat(h.whole).hasSize(2);
            assertThat(h.whole.get(0)).isEqualTo(Datagrams.bytes(1_016, 9));
            assertThat(h.whole.get(1)).hasSize(16);

            // after a decline a few datagrams are taken whole without peeking; then the handler
            // is asked again, and a placement past the target's end is refused by the wire
            h.offset = 1_000;
            for (int i = 0; i < 20; i++) {
                assertThat(a.send(b.localAddress(), packet, 1_016, false)).isTrue();
            }
            assertThat(h.drain(b, 20)).isEqualTo(20);
            assertThat(h.placedLengths).isEmpty();
            assertThat(h.whole).hasSize(22);
            assertThat(target.asSlice(1_000, 500).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0);
            assertThat(b.stats().receiveErrors()).isPositive();
            assertThat(b.stats().datagramsReceived()).isEqualTo(22);
        }
    }

    @Test
    void predictedPlacesTakeTheNextDatagramsWithoutPeekingAMispredictedOneArrivesWholeAndPredictionPauses() {
        UdpPort a = nativeWire.bind("");
        UdpPort b = nativeWire.bind("");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment target = arena.allocate(10_000);
            for (int i = 0; i < 4; i++) {
                MemorySegment packet = MemorySegment.ofArray(Datagrams.bytes(1_016, 40 + i));
                assertThat(a.send(b.localAddress(), packet, 1_016, false)).isTrue();
            }
            // a longer datagram at the end: it does not fit a prediction, so it must come whole
            MemorySegment big = MemorySegment.ofArray(Datagrams.bytes(2_016, 50));
            assertThat(a.send(b.localAddress(), big, 2_016, false)).isTrue();
            Datagrams.settle();
            // the handler confirms the first prediction only
            java.util.concurrent.atomic.AtomicInteger confirms = new java.util.concurrent.atomic.AtomicInteger();
            Placing checking = new Placing(target, 0) {
                @Override
                public boolean confirm(MemorySegment header, int length, io.slime4j.wire.WireAddress from) {
                    return confirms.incrementAndGet() < 2;
                }
            };
            checking.predictStep = 1_000;
            checking.predictions = 3;
            assertThat(b.receive(checking, 16)).isEqualTo(5);

            // 1st peeked and placed at 0, 2nd predicted at 1000, 3rd predicted at 2000 but declined
            // (it comes whole), 4th peeked and placed at 2000 again; after the miss prediction pauses,
            // so the 5th (2016 bytes) is peeked and placed too, never predicted into a place too small
            assertThat(checking.placedLengths).containsExactly(1_016, 1_016, 1_016, 2_016);
            assertThat(checking.whole).hasSize(1);
            assertThat(checking.whole.get(0)).isEqualTo(Datagrams.bytes(1_016, 42));
            assertThat(target.asSlice(0, 1_000).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(Arrays.copyOfRange(Datagrams.bytes(1_016, 40), 16, 1_016));
            assertThat(target.asSlice(1_000, 1_000).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(Arrays.copyOfRange(Datagrams.bytes(1_016, 41), 16, 1_016));
            // the 4th was placed at 2000, then the 5th, peeked, at the same place (this handler's
            // place moves only with a prediction): the 5th's payload is what is there now
            assertThat(target.asSlice(2_000, 2_000).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(Arrays.copyOfRange(Datagrams.bytes(2_016, 50), 16, 2_016));
            assertThat(b.stats().placedDatagramsReceived()).isEqualTo(4);
            assertThat(b.stats().predictedDatagramsReceived()).isEqualTo(1);
            assertThat(b.stats().datagramsReceived()).isEqualTo(5);
        }
    }

    @Test
    void aClosedSocketsCallsNeverTouchTheDescriptorNumberAnotherSocketGotSince() throws Exception {
        java.net.InetAddress loopback = java.net.InetAddress.getLoopbackAddress();
        NativeUdpSocket old = NativeUdpSocket.open(loopback, 0, 1 << 16, 1 << 16);
        old.close();
        old.close();
        // the kernel hands out the lowest free number, most likely the one just closed
        NativeUdpSocket fresh = NativeUdpSocket.open(loopback, 0, 1 << 16, 1 << 16);
        NativeUdpSocket sender = NativeUdpSocket.open(loopback, 0, 1 << 16, 1 << 16);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(2_048);
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> old.receive(buffer))
                        .isInstanceOf(java.nio.channels.ClosedChannelException.class);
                assertThatThrownBy(() -> old.send(buffer, 10, new java.net.InetSocketAddress(loopback, 9)))
                        .isInstanceOf(java.nio.channels.ClosedChannelException.class);
            }
            buffer.fill((byte) 7);
            assertThat(sender.send(buffer, 100, new java.net.InetSocketAddress(loopback, fresh.localPort()))).isTrue();
            java.net.InetSocketAddress from = null;
            for (int i = 0; i < 500 && from == null; i++) {
                from = fresh.receive(buffer);
                if (from == null) {
                    Datagrams.settle();
                }
            }
            assertThat(from).as("the fresh socket still receives").isNotNull();
            assertThat(fresh.receivedLength()).isEqualTo(100);
            assertThat(from.getPort()).isEqualTo(sender.localPort());
        } finally {
            fresh.close();
            sender.close();
        }
    }

    @Test
    void theNioBackendHandsAPlacingHandlerWholeDatagrams() {
        UdpPort a = nioWire.bind("");
        UdpPort b = nioWire.bind("");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packet = arena.allocate(1_016);
            Placing h = new Placing(arena.allocate(5_000), 0);
            assertThat(a.send(b.localAddress(), packet, 1_016, false)).isTrue();
            assertThat(h.drain(b, 1)).isEqualTo(1);
            assertThat(h.whole).hasSize(1);
            assertThat(h.placedLengths).isEmpty();
            assertThat(b.stats().placedDatagramsReceived()).isZero();
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
