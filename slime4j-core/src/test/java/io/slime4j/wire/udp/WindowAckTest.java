package io.slime4j.wire.udp;

import io.slime4j.verbs.Counter;
import io.slime4j.soft.SoftCounters;
import io.slime4j.soft.SoftCounter;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.QpConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A receiver whose advertised window is smaller than {@code ackEvery} packets acknowledges once
 * half of that window has arrived, so a sender that honours the window never waits out the ACK
 * delay with its window full.
 */
@Timeout(60)
class WindowAckTest {
    private static final long MIB = 1 << 20;

    @Test
    void aWindowLimitedSenderIsAcknowledgedEveryHalfWindowNotAfterTheAckDelay() throws Exception {
        // a 512 KiB socket buffer: b advertises a window of 113 packets of 4 KiB, so an ACK is due
        // after 56 of them, fewer than ackEvery = 200; the ACK delay is 2 s, so a receiver that
        // waited for 200 packets or the delay would hold every window for 2 s (over 30 s in all)
        UdpConfig udp = UdpConfig.builder().receiveBufferSize(512 << 10).build();
        SoftConfig.Builder soft = SoftConfig.builder().ackDelay(Duration.ofSeconds(2)).ackEvery(200);
        QpConfig qp = QpConfig.builder().mtu(4096).ackTimeout(Duration.ofSeconds(10)).build();
        try (UdpDevicePair p = new UdpDevicePair(udp, null, soft, qp)) {
            Duration took = writeByteExact(p, 8 * MIB, 3); // 2048 packets: 18 windows
            long acks = SoftCounters.of(p.b).get(SoftCounter.ACKS_SENT);
            assertThat(acks).as("ACKs from b for 2048 packets (one per window at least)").isGreaterThanOrEqualTo(2048 / 113);
            assertThat(took).as("time of 18 windows, each of which would wait 2 s for a delayed ACK")
                    .isLessThan(Duration.ofSeconds(20));
            assertThat(p.a.counters().get(Counter.TIMEOUTS)).isZero();
        }
    }

    @Test
    void theWindowAndTheAckThresholdCountInThePeersPacketsWhenTheMtusDiffer() throws Exception {
        // a sends 60,000-byte packets, b's own MTU is 4 KiB: counted in b's packets, b would
        // advertise 113 of them (470 KB, which a fills with 7 of its own) and ACK after 56, so a
        // would wait out the 2 s ACK delay for every window
        UdpConfig udp = UdpConfig.builder().receiveBufferSize(512 << 10).build();
        SoftConfig.Builder soft = SoftConfig.builder().ackDelay(Duration.ofSeconds(2)).ackEvery(200);
        QpConfig big = QpConfig.builder().mtu(60_000).ackTimeout(Duration.ofSeconds(10)).build();
        QpConfig small = QpConfig.builder().mtu(4096).ackTimeout(Duration.ofSeconds(10)).build();
        try (UdpDevicePair p = new UdpDevicePair(udp, null, soft, big, small)) {
            Duration took = writeByteExact(p, 8 * MIB, 4); // 140 packets of 60,000 bytes: 17 windows of 8
            assertThat(took).as("time of 17 windows, each of which would wait 2 s for a delayed ACK")
                    .isLessThan(Duration.ofSeconds(16));
            assertThat(p.a.counters().get(Counter.TIMEOUTS)).isZero();
        }
    }

    /** Writes {@code total} bytes from a to b in 1 MiB writes, checks them at b, and returns how long it took. */
    private static Duration writeByteExact(UdpDevicePair p, long total, long seed) throws InterruptedException {
        MemoryRegion src = p.region(p.pdA, total);
        MemoryRegion dst = p.region(p.pdB, total);
        UdpDevicePair.fill(src.segment(), seed);
        long start = System.nanoTime();
        p.writeAll(src, dst, MIB, 40);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(dst.segment().mismatch(src.segment())).as("first differing byte").isEqualTo(-1);
        return took;
    }
}
