package io.slime4j.wire.udp;

import static io.slime4j.wire.udp.Datagrams.bytes;
import static io.slime4j.wire.udp.Datagrams.numbered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.internal.Allocations;
import io.slime4j.wire.PacketHandler;
import io.slime4j.wire.WireAddress;
import io.slime4j.wire.WirePort;
import io.slime4j.wire.inproc.InprocAddress;
import io.slime4j.wire.udp.Datagrams.Received;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class UdpPortTest {

    private final UdpWire wire = new UdpWire(config());

    /** The settings of the wires under test: the default backend (native when the JVM allows it). */
    UdpConfig config() {
        return UdpConfig.defaults();
    }

    @AfterEach
    void closeWire() {
        wire.close();
    }

    @Test
    void datagramsMakeTheRoundTripOnLoopbackOnBothChannelsFromTheSendersAdvertisedAddress() {
        UdpPort a = wire.bind("udp:127.0.0.1:0");
        UdpPort b = wire.bind("udp:127.0.0.1:0");
        UdpAddress aAsSeenByB = b.resolve(a.localAddress().text());
        byte[] small = bytes(7, 1);
        byte[] large = bytes(UdpConfig.MAX_DATAGRAM_SIZE, 3);

        assertThat(a.send(b.localAddress(), MemorySegment.ofArray(small), small.length, true)).isTrue();
        assertThat(a.send(b.localAddress(), MemorySegment.ofArray(large), large.length, false)).isTrue();
        List<Received> got = Datagrams.receive(b, 2, 5_000);

        assertThat(got).extracting(Received::bytes).containsExactlyInAnyOrder(small, large);
        assertThat(got).extracting(Received::from).containsOnly(a.localAddress());
        assertThat(aAsSeenByB).isEqualTo(a.localAddress());
        UdpPortStats stats = b.stats();
        assertThat(stats.datagramsReceived()).isEqualTo(2);
        assertThat(stats.priorityDatagramsReceived()).isEqualTo(1);
        assertThat(stats.bytesReceived()).isEqualTo(small.length + large.length);
        assertThat(a.stats().datagramsSent()).isEqualTo(2);
    }

    @Test
    void aHandlerThatHasEnoughEndsTheReceiveAndWhatIsLeftComesInTheNextOneInOrder() {
        UdpPort a = wire.bind("udp:127.0.0.1:0");
        UdpPort b = wire.bind("udp:127.0.0.1:0");
        byte[] first = bytes(40, 1);
        byte[] second = bytes(50, 2);
        byte[] third = bytes(60, 3);
        assertThat(a.send(b.localAddress(), MemorySegment.ofArray(first), first.length, true)).isTrue();
        assertThat(a.send(b.localAddress(), MemorySegment.ofArray(second), second.length, false)).isTrue();
        assertThat(a.send(b.localAddress(), MemorySegment.ofArray(third), third.length, false)).isTrue();
        Datagrams.settle();
        List<byte[]> got = new ArrayList<>();
        PacketHandler enoughAfterOne = new PacketHandler() {
            @Override
            public void onPacket(MemorySegment packet, int length, WireAddress from) {
                got.add(packet.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
            }

            @Override
            public boolean receiveMore() {
                return false;
            }
        };

        // the priority datagram first, alone (no look at the data channel after it), then the data channel's one
        // at a time, each followed only by the priority channel's second look, which finds it empty
        for (int call = 1; call <= 3; call++) {
            assertThat(b.receive(enoughAfterOne, 64)).as("call %d: one datagram", call).isEqualTo(1);
        }
        assertThat(got).containsExactly(first, second, third);
        assertThat(b.receive(enoughAfterOne, 64)).isZero();
        assertThat(b.stats().datagramsReceived()).isEqualTo(3);
    }

    @Test
    void aNativeSegmentIsSentAsIsAndOnlyThePrefixGivenByLengthLeaves() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(1000);
            segment.copyFrom(MemorySegment.ofArray(bytes(1000, 5)));

            a.send(b.localAddress(), segment, 10, false);
            segment.copyFrom(MemorySegment.ofArray(bytes(1000, 9)));
            a.send(b.localAddress(), segment, 20, false); // the same segment again, new contents and length

            List<Received> got = Datagrams.receive(b, 2, 5_000);
            assertThat(got).extracting(Received::bytes)
                    .containsExactly(java.util.Arrays.copyOf(bytes(1000, 5), 10), java.util.Arrays.copyOf(bytes(1000, 9), 20));
        }
    }

    @Test
    void aSourceThePortHasNotResolvedIsReportedAsItsBareSocketAddress() throws Exception {
        UdpPort b = wire.bind("");
        try (DatagramChannel stranger = DatagramChannel.open()) {
            stranger.bind(new InetSocketAddress("127.0.0.1", 0));
            stranger.send(ByteBuffer.wrap(bytes(8, 1)), b.localAddress().socketAddress());

            List<Received> got = Datagrams.receive(b, 1, 5_000);

            assertThat(got).hasSize(1);
            assertThat(got.getFirst().from()).isEqualTo(UdpAddress.of((InetSocketAddress) stranger.getLocalAddress()));
        }
    }

    @Test
    void datagramsFromEitherSocketOfAResolvedPeerShowAsThatPeer() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        for (int i = 0; i < 10; i++) {
            a.send(b.localAddress(), numbered(i), 4, i % 2 == 0);
        }
        Datagrams.settle();
        List<Received> before = Datagrams.receive(b, 10, 5_000);
        assertThat(before).extracting(Received::from).doesNotContain(a.localAddress())
                .contains(UdpAddress.of(a.localAddress().socketAddress()),
                        UdpAddress.of(a.localAddress().prioritySocketAddress()));

        b.resolve(a.localAddress().text()); // after the port cached the bare sources
        for (int i = 0; i < 10; i++) {
            a.send(b.localAddress(), numbered(i), 4, i % 2 == 0);
        }
        assertThat(Datagrams.receive(b, 10, 5_000)).extracting(Received::from).hasSize(10)
                .containsOnly(a.localAddress());
    }

    @Test
    void thePriorityChannelIsDrainedBeforeTheDataChannel() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        for (int i = 0; i < 5; i++) {
            a.send(b.localAddress(), numbered(i), 4, false);
        }
        for (int i = 100; i < 103; i++) {
            a.send(b.localAddress(), numbered(i), 4, true);
        }
        Datagrams.settle();

        assertThat(Datagrams.receiveOnce(b, 100)).extracting(Received::number).containsExactly(100, 101, 102, 0, 1, 2, 3, 4);
    }

    @Test
    void aPriorityDatagramThatArrivesWhileTheDataChannelIsDrainedIsTakenInTheSameReceive() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        a.send(b.localAddress(), numbered(1), 4, false);
        Datagrams.settle();
        List<Integer> got = new ArrayList<>();
        // the priority datagram arrives after the first look at the priority channel (on loopback a send
        // is in the receiver's socket when it returns), while the data channel's datagram is handled
        PacketHandler h = (packet, length, from) -> {
            int n = packet.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
            got.add(n);
            if (n == 1) {
                a.send(b.localAddress(), numbered(0), 4, true);
            }
        };

        assertThat(b.receive(h, 16)).isEqualTo(2);
        assertThat(got).containsExactly(1, 0);
        assertThat(b.receive(h, 16)).isZero();
    }

    @Test
    void theSecondLookDrainsThePriorityChannelAlsoWhenTheHandlerHasEnough() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        a.send(b.localAddress(), numbered(1), 4, false);
        a.send(b.localAddress(), numbered(2), 4, false);
        Datagrams.settle();
        List<Integer> got = new ArrayList<>();
        // two priority datagrams arrive while the data channel's first datagram is handled, after which the
        // handler has enough: both may have been sent before it, so both are taken in this call, the second
        // data datagram in the next
        PacketHandler h = new PacketHandler() {
            @Override
            public void onPacket(MemorySegment packet, int length, WireAddress from) {
                int n = packet.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
                got.add(n);
                if (n == 1) {
                    a.send(b.localAddress(), numbered(10), 4, true);
                    a.send(b.localAddress(), numbered(11), 4, true);
                }
            }

            @Override
            public boolean receiveMore() {
                return !got.contains(1);
            }
        };

        assertThat(b.receive(h, 16)).isEqualTo(3);
        assertThat(got).containsExactly(1, 10, 11);
        assertThat(b.receive(h, 16)).isEqualTo(1);
        assertThat(got).containsExactly(1, 10, 11, 2);
    }

    @Test
    void aFloodOnThePriorityChannelLeavesAnEighthOfEachReceiveToTheDataChannel() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        for (int i = 0; i < 4; i++) {
            a.send(b.localAddress(), numbered(i), 4, false);
        }
        for (int i = 1000; i < 1100; i++) {
            a.send(b.localAddress(), numbered(i), 4, true);
        }
        Datagrams.settle();

        List<Integer> first = Datagrams.receiveOnce(b, 16).stream().map(Received::number).toList();
        assertThat(first).hasSize(16).startsWith(1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010,
                1011, 1012, 1013).endsWith(0, 1);
        List<Integer> second = Datagrams.receiveOnce(b, 16).stream().map(Received::number).toList();
        assertThat(second).hasSize(16).endsWith(2, 3);
        List<Integer> third = Datagrams.receiveOnce(b, 16).stream().map(Received::number).toList();
        assertThat(third).as("no data left: the priority channel fills the whole limit").hasSize(16)
                .allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(1000));
    }

    @Test
    void atMostLimitDatagramsAreHandedOverPerReceiveAndTheRestWait() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        for (int i = 0; i < 10; i++) {
            a.send(b.localAddress(), numbered(i), 4, false);
        }
        Datagrams.settle();

        assertThat(Datagrams.receiveOnce(b, 3)).extracting(Received::number).containsExactly(0, 1, 2);
        assertThat(Datagrams.receiveOnce(b, 0)).isEmpty();
        assertThat(Datagrams.receiveOnce(b, 100)).extracting(Received::number).containsExactly(3, 4, 5, 6, 7, 8, 9);
        assertThat(Datagrams.receiveOnce(b, 100)).isEmpty();
    }

    @Test
    void aDatagramLargerThanTheMaximumIsDroppedAndCountedAndTheNextOneStillArrives() throws Exception {
        try (UdpWire small = new UdpWire(config().toBuilder().maxDatagramSize(1024).build());
             DatagramChannel raw = DatagramChannel.open()) {
            UdpPort b = small.bind("");
            raw.send(ByteBuffer.wrap(bytes(1025, 1)), b.localAddress().socketAddress());
            raw.send(ByteBuffer.wrap(bytes(60_000, 2)), b.localAddress().prioritySocketAddress());
            raw.send(ByteBuffer.wrap(bytes(1024, 3)), b.localAddress().socketAddress());
            Datagrams.settle();

            List<Received> got = Datagrams.receive(b, 1, 5_000);

            assertThat(got).extracting(Received::bytes).containsExactly(bytes(1024, 3));
            assertThat(b.stats().oversizeDrops()).isEqualTo(2);
            assertThat(b.maxPacketSize()).isEqualTo(1024);
        }
    }

    @Test
    void sendRefusesForeignAddressesAndLengthsOutsideTheSegmentOrTheMaximum() {
        UdpPort a = wire.bind("");
        MemorySegment packet = MemorySegment.ofArray(new byte[100]);

        assertThatThrownBy(() -> a.send(new InprocAddress("x"), packet, 10, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.send(a.localAddress(), packet, 101, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.send(a.localAddress(), packet, -1, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.send(a.localAddress(), MemorySegment.ofArray(new byte[70_000]), 65_508, false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFullSendBufferMakesSendReturnFalseAtOnceAndIsCounted() throws Exception {
        FullSendBufferChannel full = new FullSendBufferChannel();
        UdpAddress self = UdpAddress.parse("udp:127.0.0.1:9/10");
        UdpPort port = new UdpPort(null, full, null, self, self, 2048, 0, 0);
        MemorySegment packet = MemorySegment.ofArray(new byte[64]);

        long start = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            assertThat(port.send(UdpAddress.parse("udp:127.0.0.1:11"), packet, 64, i % 2 == 0)).isFalse();
        }

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(full.sendAttempts).isEqualTo(1000);
        assertThat(port.stats().sendBufferFull()).isEqualTo(1000);
        assertThat(port.stats().datagramsSent()).isZero();
        port.close();
    }

    @Test
    void sendingFarMoreThanTheBuffersHoldToAPortThatNeverReadsNeverBlocks() {
        UdpWire tiny = new UdpWire(config().toBuilder().sendBufferSize(4096).receiveBufferSize(4096).build());
        try (tiny) {
            UdpPort a = tiny.bind("");
            UdpPort b = tiny.bind("");
            MemorySegment packet = MemorySegment.ofArray(new byte[8192]);
            int accepted = 0;
            int refused = 0;
            long start = System.nanoTime();
            for (int i = 0; i < 20_000; i++) {
                if (a.send(b.localAddress(), packet, 8192, i % 4 == 0)) {
                    accepted++;
                } else {
                    refused++;
                }
            }
            Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

            assertThat(elapsed).as("20,000 sends of 8 KiB into 4 KiB buffers").isLessThan(Duration.ofSeconds(10));
            assertThat(accepted + refused).isEqualTo(20_000);
            assertThat(a.stats().sendBufferFull()).isEqualTo(refused);
            List<Received> got = Datagrams.receive(b, 20_000, 200);
            assertThat(got.size()).as("what the receiver's small buffer kept").isLessThan(accepted);
        }
    }

    @Test
    void aClosedPortSendsNothingReceivesNothingAndClosesOnlyOnce() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        a.close();
        a.close();

        assertThat(a.isClosed()).isTrue();
        assertThat(a.send(b.localAddress(), numbered(1), 4, false)).isFalse();
        assertThat(a.receive((p, l, f) -> { }, 10)).isZero();
        assertThat(wire.ports()).containsExactly(b);
    }

    @Test
    void closingWhileAnotherThreadReceivesEndsTheReceivesQuietly() throws Exception {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread receiver = Thread.ofPlatform().start(() -> {
            try {
                started.countDown();
                while (!b.isClosed()) {
                    b.receive((p, l, f) -> { }, 64);
                }
                b.receive((p, l, f) -> { }, 64);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        started.await();
        for (int i = 0; i < 1000; i++) {
            a.send(b.localAddress(), numbered(i), 4, i % 3 == 0);
        }
        b.close();
        receiver.join(5_000);

        assertThat(receiver.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(b.stats().receiveErrors()).isZero();
    }

    @Test
    void theKernelsGrantedBufferSizesAreReported() {
        UdpPort a = wire.bind("");

        // Linux grants min(requested, rmem_max) and reports twice that.
        assertThat(a.receiveBufferSize()).isPositive();
        assertThat(a.sendBufferSize()).isPositive();
    }

    @Test
    void aPortNeverCallsTheReceivableWakeup() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        CountDownLatch woken = new CountDownLatch(1);
        b.onReceivable(woken::countDown);

        a.send(b.localAddress(), numbered(1), 4, false);

        assertThat(Datagrams.receive(b, 1, 5_000)).hasSize(1);
        assertThat(woken.getCount()).isEqualTo(1);
    }

    @Test
    @Timeout(90) // up to 20 rounds: under load the JIT may take a while to compile the native calls
    void sendingAndReceivingInSteadyStateAllocatesAlmostNothingPerDatagram() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        b.resolve(a.localAddress().text());
        long[] handled = new long[1];
        PacketHandler handler = (packet, length, from) -> handled[0] += length;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packet = arena.allocate(4160);
            for (int i = 0; i < 20_000; i++) { // warm up
                a.send(b.localAddress(), packet, 4160, (i & 7) == 0);
                b.receive(handler, 16);
            }
            while (b.receive(handler, 256) > 0) {
                // drain
            }
            // steady state: the best of a few rounds, as the JIT may still be compiling the first
            int n = 20_000;
            long perDatagram = Long.MAX_VALUE;
            for (int round = 0; round < 20 && perDatagram >= 16; round++) {
                long before = Allocations.ofThisThread();
                for (int i = 0; i < n; i++) {
                    a.send(b.localAddress(), packet, 4160, (i & 7) == 0);
                    b.receive(handler, 16);
                }
                perDatagram = Math.min(perDatagram, (Allocations.ofThisThread() - before) / n);
            }

            assertThat(handled[0]).isPositive();
            assertThat(perDatagram).as("bytes allocated per datagram sent and received").isLessThan(16);
        }
    }

    @Test
    void aPortReachesOnlyItsOwnAddressFamily() {
        WirePort v4 = wire.bind("udp:127.0.0.1:0");

        assertThatThrownBy(() -> v4.resolve("udp:[::1]:5000"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'udp:[::1]:5000'");
    }
}
