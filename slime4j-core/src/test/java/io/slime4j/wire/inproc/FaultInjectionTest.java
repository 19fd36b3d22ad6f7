package io.slime4j.wire.inproc;

import io.slime4j.wire.WirePort;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

@Timeout(20)
class FaultInjectionTest {

    private final List<InprocWire> wires = new ArrayList<>();

    @AfterEach
    void closeWires() {
        wires.forEach(InprocWire::close);
    }

    @Test
    void dropsAboutTheConfiguredShareAndCountsEachDrop() {
        InprocWire wire = wire(FaultConfig.builder().seed(1).dropRate(0.1).build());
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");

        List<Integer> arrived = exchange(wire, a, b, 100_000);

        FaultStats stats = wire.faultStats();
        long missing = 100_000 - new HashSet<>(arrived).size();
        assertThat(missing).isEqualTo(stats.dropped()).isBetween(9_500L, 10_500L);
        assertThat(arrived).as("no duplicates, no reordering").isSorted().doesNotHaveDuplicates();
        assertThat(stats.packetsSent()).isEqualTo(100_000);
        assertThat(stats.packetsSent()).isEqualTo(stats.packetsDelivered() + stats.dropped() - stats.duplicated());
    }

    @Test
    void accountsForEveryPacketUnderDropDuplicationAndReordering() {
        InprocWire wire = wire(FaultConfig.builder().seed(2).dropRate(0.1).duplicateRate(0.1).reorderRate(0.1)
                .build());
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");

        List<Integer> arrived = exchange(wire, a, b, 100_000);

        FaultStats stats = wire.faultStats();
        assertThat(100_000 - new HashSet<>(arrived).size()).isEqualTo(stats.dropped());
        assertThat(arrived.size() - new HashSet<>(arrived).size()).isEqualTo(stats.duplicated());
        assertThat(stats.packetsSent()).isEqualTo(stats.packetsDelivered() + stats.dropped() - stats.duplicated());
        assertThat(stats.dropped()).isBetween(9_500L, 10_500L);
        assertThat(stats.duplicated()).isBetween(8_500L, 9_500L);
        assertThat(stats.reordered()).isBetween(9_200L, 10_600L);
        assertThat(stats.queueFullDrops()).isZero();
    }

    @Test
    void duplicationDeliversSomePacketsTwiceAndEveryPacketAtLeastOnce() {
        InprocWire wire = wire(FaultConfig.builder().seed(3).duplicateRate(0.2).build());
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");

        List<Integer> arrived = exchange(wire, a, b, 20_000);

        var counts = arrived.stream().collect(Collectors.groupingBy(n -> n, Collectors.counting()));
        assertThat(counts).hasSize(20_000);
        assertThat(counts.values()).allMatch(c -> c == 1 || c == 2);
        long twice = counts.values().stream().filter(c -> c == 2).count();
        assertThat(twice).isEqualTo(wire.faultStats().duplicated()).isBetween(3_600L, 4_400L);
    }

    @Test
    void reorderingLetsLaterPacketsOvertakeButLosesNone() {
        InprocWire wire = wire(FaultConfig.builder().seed(4).reorderRate(0.1).build());
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");

        List<Integer> arrived = exchange(wire, a, b, 20_000);

        assertThat(arrived).hasSize(20_000).doesNotHaveDuplicates().isNotEqualTo(arrived.stream().sorted().toList());
        assertThat(wire.faultStats().reordered()).isBetween(1_700L, 2_300L);
    }

    @Test
    void theSameSeedMakesTheSameDecisions() {
        FaultConfig faults = FaultConfig.builder().seed(42).dropRate(0.2).duplicateRate(0.2).reorderRate(0.2).build();

        List<Integer> first = sortedArrivals(faults);
        List<Integer> second = sortedArrivals(faults);
        List<Integer> otherSeed = sortedArrivals(faults.toBuilder().seed(43).build());

        assertThat(second).isEqualTo(first);
        assertThat(otherSeed).isNotEqualTo(first);
    }

    @Test
    void aFixedDelayHoldsEveryPacketAndKeepsTheirOrder() {
        Duration delay = Duration.ofMillis(200);
        InprocWire wire = wire(FaultConfig.builder().delay(delay).build());
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        long start = System.nanoTime();
        for (int i = 0; i < 100; i++) {
            a.send(b.localAddress(), Receiver.numbered(i), 4, false);
        }

        assertThat(Receiver.numbers(b, 1000)).isEmpty();
        List<Integer> arrived = receive(wire, b, 100);

        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(delay.toNanos());
        assertThat(arrived).hasSize(100).isSorted();
        assertThat(wire.faultStats().delayed()).isEqualTo(100);
    }

    @Test
    void aPacketWithoutDelayIsNotStuckBehindAHeldOne() {
        InprocWire wire = wire(FaultConfig.builder().delay(Duration.ofSeconds(10)).build());
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        a.send(b.localAddress(), Receiver.numbered(1), 4, false);

        wire.setFaults(FaultConfig.NONE);
        a.send(b.localAddress(), Receiver.numbered(2), 4, false);

        assertThat(Receiver.numbers(b, 10)).containsExactly(2);
        assertThat(Receiver.numbers(b, 10)).isEmpty();
    }

    @Test
    void setFaultsTakesEffectLiveForADeadLinkAndItsRecovery() {
        InprocWire wire = wire(FaultConfig.NONE);
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");

        wire.setFaults(FaultConfig.builder().dropRate(1.0).build());
        for (int i = 0; i < 100; i++) {
            assertThat(a.send(b.localAddress(), Receiver.numbered(i), 4, false)).isTrue();
        }
        assertThat(Receiver.numbers(b, 1000)).isEmpty();
        assertThat(wire.faultStats().dropped()).isEqualTo(100);

        wire.setFaults(FaultConfig.NONE);
        a.send(b.localAddress(), Receiver.numbered(100), 4, false);
        assertThat(Receiver.numbers(b, 1000)).containsExactly(100);
        assertThat(wire.faults()).isEqualTo(FaultConfig.NONE);
    }

    private InprocWire wire(FaultConfig faults) {
        InprocWire wire = new InprocWire(faults);
        wires.add(wire);
        return wire;
    }

    private List<Integer> sortedArrivals(FaultConfig faults) {
        InprocWire wire = wire(faults);
        WirePort a = wire.bind("a");
        WirePort b = wire.bind("b");
        return exchange(wire, a, b, 10_000).stream().sorted().toList();
    }

    /** Sends {@code count} numbered packets from a to b and returns the numbers in arrival order. */
    private static List<Integer> exchange(InprocWire wire, WirePort a, WirePort b, int count) {
        List<Integer> arrived = new ArrayList<>(count + count / 4);
        MemorySegment packet = MemorySegment.ofArray(new byte[4]);
        for (int i = 0; i < count; i++) {
            packet.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
            assertThat(a.send(b.localAddress(), packet, 4, false)).isTrue();
            if ((i & 1023) == 1023) {
                receiveInto(b, arrived);
            }
        }
        FaultStats stats = wire.faultStats();
        long expected = stats.packetsSent() - stats.dropped() + stats.duplicated();
        arrived.addAll(receive(wire, b, expected - arrived.size()));
        return arrived;
    }

    /** Polls b until {@code count} more packets have arrived, then checks no more come. */
    private static List<Integer> receive(InprocWire wire, WirePort b, long count) {
        List<Integer> arrived = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (arrived.size() < count) {
            if (receiveInto(b, arrived) == 0) {
                if (System.nanoTime() > deadline) {
                    fail("only " + arrived.size() + " of " + count + " packets arrived; " + wire.faultStats());
                }
                Thread.onSpinWait();
            }
        }
        assertThat(arrived).hasSize((int) count);
        return arrived;
    }

    private static int receiveInto(WirePort port, List<Integer> into) {
        return port.receive((p, length, from) -> into.add(p.get(ValueLayout.JAVA_INT_UNALIGNED, 0)), 4096);
    }
}
