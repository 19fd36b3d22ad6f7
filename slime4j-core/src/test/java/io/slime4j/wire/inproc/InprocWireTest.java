package io.slime4j.wire.inproc;

import io.slime4j.wire.PacketHandler;
import io.slime4j.wire.WireAddress;
import io.slime4j.wire.WirePort;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(10)
class InprocWireTest {

    private final InprocWire wire = new InprocWire();

    @AfterEach
    void closeWire() {
        wire.close();
    }

    @Test
    void deliversBytesExactlyOnBothChannelsWithTheSendersAddress() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        byte[] small = bytes(7, 1);
        byte[] large = bytes(InprocWire.MAX_PACKET_SIZE, 3);

        assertThat(a.send(b.localAddress(), MemorySegment.ofArray(small), small.length, true)).isTrue();
        assertThat(a.send(b.localAddress(), MemorySegment.ofArray(large), large.length, false)).isTrue();
        List<byte[]> received = new ArrayList<>();
        List<WireAddress> from = new ArrayList<>();
        int n = b.receive((packet, length, sender) -> {
            received.add(packet.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
            from.add(sender);
        }, 10);

        assertThat(n).isEqualTo(2);
        assertThat(received).containsExactly(small, large);
        assertThat(from).containsExactly(a.localAddress(), a.localAddress());
        assertThat(b.receive((p, l, s) -> { }, 10)).isZero();
    }

    @Test
    void aHandlerThatHasEnoughEndsTheReceiveAndTheRestComesInTheNextOneInOrder() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        a.send(b.localAddress(), MemorySegment.ofArray(bytes(5, 1)), 5, true);
        a.send(b.localAddress(), MemorySegment.ofArray(bytes(6, 2)), 6, false);
        a.send(b.localAddress(), MemorySegment.ofArray(bytes(7, 3)), 7, false);
        List<Integer> lengths = new ArrayList<>();
        PacketHandler enoughAfterOne = new PacketHandler() {
            @Override
            public void onPacket(MemorySegment packet, int length, WireAddress from) {
                lengths.add(length);
            }

            @Override
            public boolean receiveMore() {
                return false;
            }
        };

        for (int call = 1; call <= 3; call++) {
            assertThat(b.receive(enoughAfterOne, 10)).as("call %d: one packet", call).isEqualTo(1);
        }
        assertThat(lengths).containsExactly(5, 6, 7);
        assertThat(b.receive(enoughAfterOne, 10)).isZero();
    }

    @Test
    void sendsOnlyThePrefixOfTheSegmentGivenByLength() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        byte[] data = bytes(100, 9);

        a.send(b.localAddress(), MemorySegment.ofArray(data), 10, false);

        List<byte[]> received = Receiver.drain(b);
        assertThat(received).hasSize(1);
        assertThat(received.getFirst()).containsExactly(java.util.Arrays.copyOf(data, 10));
    }

    @Test
    void drainsThePriorityChannelBeforeTheDataChannel() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        for (int i = 0; i < 5; i++) {
            a.send(b.localAddress(), Receiver.numbered(i), 4, false);
        }
        for (int i = 100; i < 103; i++) {
            a.send(b.localAddress(), Receiver.numbered(i), 4, true);
        }

        assertThat(Receiver.numbers(b, 100)).containsExactly(100, 101, 102, 0, 1, 2, 3, 4);
    }

    @Test
    void handsOverAtMostLimitPacketsPerReceive() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        for (int i = 0; i < 10; i++) {
            a.send(b.localAddress(), Receiver.numbered(i), 4, i % 2 == 0);
        }

        assertThat(Receiver.numbers(b, 3)).containsExactly(0, 2, 4);
        assertThat(Receiver.numbers(b, 3)).containsExactly(6, 8, 1);
        assertThat(Receiver.numbers(b, 100)).containsExactly(3, 5, 7, 9);
    }

    @Test
    void runsTheWakeupOnceForEveryQueuedPacket() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        AtomicInteger wakeups = new AtomicInteger();
        b.onReceivable(wakeups::incrementAndGet);

        a.send(b.localAddress(), Receiver.numbered(1), 4, false);
        a.send(b.localAddress(), Receiver.numbered(2), 4, true);

        assertThat(wakeups).hasValue(2);
    }

    @Test
    void returnsFalseAndCountsWhenTheDestinationQueueIsFull() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        MemorySegment packet = Receiver.numbered(0);
        for (int i = 0; i < InprocWire.QUEUE_CAPACITY; i++) {
            assertThat(a.send(b.localAddress(), packet, 4, false)).isTrue();
        }

        assertThat(a.send(b.localAddress(), packet, 4, false)).isFalse();
        assertThat(wire.faultStats().queueFullDrops()).isEqualTo(1);
        assertThat(a.send(b.localAddress(), packet, 4, true)).as("the priority channel has its own queue").isTrue();
        assertThat(b.receive((p, l, s) -> { }, Integer.MAX_VALUE)).isEqualTo(InprocWire.QUEUE_CAPACITY + 1);
        assertThat(a.send(b.localAddress(), packet, 4, false)).isTrue();
    }

    @Test
    void countsButAcceptsDatagramsToAnUnknownAddressAsUdpWould() {
        WirePort a = wire.bind("a");

        assertThat(a.send(a.resolve("nobody"), Receiver.numbered(1), 4, false)).isTrue();

        assertThat(wire.faultStats().unknownDestinationDrops()).isEqualTo(1);
        assertThat(wire.faultStats().packetsSent()).isEqualTo(1);
    }

    @Test
    void aClosedPortSendsAndReceivesNothingAndFreesItsName() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        a.send(b.localAddress(), Receiver.numbered(1), 4, false);

        b.close();
        b.close();

        assertThat(b.receive((p, l, s) -> { }, 10)).isZero();
        assertThat(b.send(a.localAddress(), Receiver.numbered(2), 4, false)).isFalse();
        assertThat(a.send(b.localAddress(), Receiver.numbered(3), 4, false)).isTrue();
        assertThat(wire.faultStats().unknownDestinationDrops()).isEqualTo(1);

        WirePort b2 = wire.bind("b");
        a.send(b2.localAddress(), Receiver.numbered(4), 4, false);
        assertThat(Receiver.numbers(b2, 10)).containsExactly(4);
    }

    @Test
    void closingTheWireClosesEveryPortAndRefusesNewBinds() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");

        wire.close();

        assertThat(a.send(b.localAddress(), Receiver.numbered(1), 4, false)).isFalse();
        assertThat(b.receive((p, l, s) -> { }, 10)).isZero();
        assertThatThrownBy(() -> wire.bind("c")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void keepsCountersOfClosedPorts() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        a.send(b.localAddress(), Receiver.numbered(1), 4, false);
        Receiver.drain(b);

        a.close();
        b.close();

        FaultStats stats = wire.faultStats();
        assertThat(stats.packetsSent()).isEqualTo(1);
        assertThat(stats.packetsDelivered()).isEqualTo(1);
    }

    @Test
    void rejectsLengthsBeyondTheSegmentOrTheMaximumAndForeignAddresses() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        MemorySegment big = MemorySegment.ofArray(new byte[InprocWire.MAX_PACKET_SIZE + 1]);

        assertThat(a.maxPacketSize()).isEqualTo(65536);
        assertThatThrownBy(() -> a.send(b.localAddress(), big, InprocWire.MAX_PACKET_SIZE + 1, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.send(b.localAddress(), Receiver.numbered(1), 5, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.send(() -> "udp:1.2.3.4:5", Receiver.numbered(1), 4, false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aThrowingHandlerLosesOnlyThePacketItWasGiven() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        a.send(b.localAddress(), Receiver.numbered(1), 4, false);
        a.send(b.localAddress(), Receiver.numbered(2), 4, false);

        assertThatThrownBy(() -> b.receive((p, l, s) -> { throw new IllegalStateException("boom"); }, 10))
                .hasMessage("boom");

        assertThat(Receiver.numbers(b, 10)).containsExactly(2);
    }

    @Test
    void separateWiresAreSeparateFabrics() {
        try (InprocWire other = new InprocWire()) {
            WirePort a = wire.bind("a");
            WirePort b = other.bind("b");
            WirePort bHere = wire.bind("b");

            a.send(b.localAddress(), Receiver.numbered(1), 4, false);

            assertThat(Receiver.numbers(b, 10)).isEmpty();
            assertThat(Receiver.numbers(bHere, 10)).containsExactly(1);
        }
    }

    @Test
    void reusesBuffersWhoseContentsAreFullyOverwritten() {
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        for (int round = 0; round < 3; round++) {
            byte[] data = bytes(3000 - round * 1000, round);
            a.send(b.localAddress(), MemorySegment.ofArray(data), data.length, false);
            assertThat(Receiver.drain(b)).singleElement().isEqualTo(data);
        }
    }

    static byte[] bytes(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }
}
