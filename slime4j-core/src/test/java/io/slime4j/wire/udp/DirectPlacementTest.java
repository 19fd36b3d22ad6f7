package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WorkRequest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine over the native backend: RDMA write payloads leave from registered memory (no gather
 * copy) and arrive straight at their target (no placement copy), byte-exact; the NIO backend
 * moves the same bytes by copying.
 */
@Timeout(60)
class DirectPlacementTest {
    private static final long MIB = 1 << 20;

    @BeforeAll
    static void nativeBackendAvailable() {
        assertThat(UdpConfig.Backend.nativeUnavailability()).as("native udp backend unavailable").isNull();
    }

    @Test
    void writesOverTheNativeBackendArePlacedStraightFromTheSocketByteExact() throws Exception {
        QpConfig qp = QpConfig.builder().mtu(16 << 10).build();
        // one datagram per send: a GSO run arrives as one coalesced receive, placed whole after one
        // peek (CoalescedPlacementTest, GsoGroTest), so with GSO on whether any datagram is placed at
        // a prediction depends on how the runs happen to arrive
        UdpConfig udp = UdpConfig.builder().backend(UdpConfig.Backend.NATIVE).gso(false).build();
        try (UdpDevicePair p = new UdpDevicePair(udp, qp)) {
            long total = 16 * MIB;
            MemoryRegion src = p.region(p.pdA, total);
            MemoryRegion dst = p.region(p.pdB, total);
            UdpDevicePair.fill(src.segment(), 11);

            p.writeAll(src, dst, MIB, 20);

            assertThat(dst.segment().mismatch(src.segment())).as("first differing byte").isEqualTo(-1);
            UdpPortStats b = p.tapB.port().stats();
            long dataDatagrams = total / (16 << 10);
            assertThat(b.placedDatagramsReceived()).as("datagrams placed at b: %s", b)
                    .isGreaterThan(dataDatagrams / 2).isLessThanOrEqualTo(b.datagramsReceived());
            assertThat(b.predictedDatagramsReceived()).as("placed without peeking at b: %s", b)
                    .isPositive().isLessThan(b.placedDatagramsReceived());
            assertThat(b.receiveErrors()).isZero();
            assertThat(p.a.counters().get(Counter.AGENT_ERRORS) + p.b.counters().get(Counter.AGENT_ERRORS)).isZero();
        }
    }

    @Test
    void aRepeatedWritePacketIsDroppedUnreadCountedAsADuplicateAndLeavesTheTargetAlone() throws Exception {
        QpConfig qp = QpConfig.builder().mtu(16 << 10).build();
        try (UdpDevicePair p = new UdpDevicePair(UdpConfig.builder().backend(UdpConfig.Backend.NATIVE).build(), qp)) {
            MemoryRegion src = p.region(p.pdA, MIB);
            MemoryRegion dst = p.region(p.pdB, MIB);
            UdpDevicePair.fill(src.segment(), 5);
            p.writeAll(src, dst, MIB, 20);
            byte[] first = p.tapA.captured(TapPort.TYPE_OFFSET + 1); // type 2: WRITE, the first one sent
            assertThat(first).as("a WRITE datagram was captured").isNotNull();
            long duplicates = p.b.counters().get(Counter.DUPLICATES);

            UdpDevicePair.fill(src.segment(), 6); // new data: the stale packet must not land over it
            for (int i = 0; i < 3; i++) {
                p.tapA.inject(first, false); // sent behind the next datagrams of the new writes
            }
            p.writeAll(src, dst, 64 << 10, 20);

            assertThat(p.tapA.pendingInjections()).isZero();
            assertThat(dst.segment().mismatch(src.segment())).as("first differing byte").isEqualTo(-1);
            UdpPortStats b = p.tapB.port().stats();
            // a copy that arrives where the receiver predicted the next packet is taken whole (it did not
            // peek) and dropped by the engine; the others are dropped unread. A spurious retransmission of
            // a's (in either transfer: its copies may arrive after the first one completed) adds duplicates
            long resent = p.a.counters().get(Counter.RETRANSMITS);
            long counted = p.b.counters().get(Counter.DUPLICATES) - duplicates;
            assertThat(b.discardedDatagrams()).as("dropped unread at b (%d resent by a): %s", resent, b)
                    .isBetween(1L, 3 + resent);
            assertThat(counted).as("the injected copies counted as duplicates at b").isGreaterThanOrEqualTo(3);
            assertThat(p.b.counters().get(Counter.DUPLICATES)).as("duplicates at b, each dropped one among them")
                    .isGreaterThanOrEqualTo(b.discardedDatagrams());
            assertThat(b.receiveErrors()).isZero();
            assertThat(p.a.counters().get(Counter.AGENT_ERRORS) + p.b.counters().get(Counter.AGENT_ERRORS)).isZero();
        }
    }

    @Test
    void tinyPacketsThatTakeThePriorityChannelNeverLetAPredictionOverwriteFinalData() throws Exception {
        // 256-byte packets fit the tiny-message size, so the oldest one in flight goes on the priority
        // channel and is executed before the data channel is read: a prediction made earlier must
        // not be used then (it would put the next packet's bytes over final ones). Coalescing is off:
        // it would bundle these small packets, and a bundle is never placed
        QpConfig qp = QpConfig.builder().mtu(QpConfig.MIN_MTU).build();
        UdpConfig udp = UdpConfig.builder().backend(UdpConfig.Backend.NATIVE).build();
        try (UdpDevicePair p = new UdpDevicePair(udp, udp, SoftConfig.builder().coalesceLimit(0), qp)) {
            long total = 4 * MIB;
            MemoryRegion src = p.region(p.pdA, total);
            MemoryRegion dst = p.region(p.pdB, total);
            UdpDevicePair.fill(src.segment(), 23);

            p.writeAll(src, dst, 256 << 10, 30);

            assertThat(dst.segment().mismatch(src.segment())).as("first differing byte").isEqualTo(-1);
            UdpPortStats b = p.tapB.port().stats();
            assertThat(b.priorityDatagramsReceived()).as("data on the priority channel: %s", b).isPositive();
            assertThat(b.placedDatagramsReceived()).as("placed: %s", b).isPositive();
        }
    }

    @Test
    void aNioDeviceAndANativeDeviceTalkToEachOtherByteExactInBothDirections() throws Exception {
        QpConfig qp = QpConfig.builder().mtu(8192).build();
        try (UdpDevicePair p = new UdpDevicePair(UdpConfig.builder().backend(UdpConfig.Backend.NIO).build(),
                UdpConfig.builder().backend(UdpConfig.Backend.NATIVE).build(), qp)) {
            assertThat(p.tapA.port().backend()).isEqualTo(UdpConfig.Backend.NIO);
            assertThat(p.tapB.port().backend()).isEqualTo(UdpConfig.Backend.NATIVE);
            long total = 8 * MIB;
            MemoryRegion src = p.region(p.pdA, total);
            MemoryRegion dst = p.region(p.pdB, total);
            MemoryRegion back = p.region(p.pdA, total);
            UdpDevicePair.fill(src.segment(), 31);

            p.writeAll(src, dst, MIB, 20); // NIO sends, native places
            WorkRequest wr = new WorkRequest();
            for (int i = 0; i < 8; i++) { // native b sends the responses from registered memory
                p.qpA.postSend(wr.clear().wrId(i).opcode(Opcode.RDMA_READ).sge(back, i * MIB, MIB)
                        .remote(RemoteRegion.of(dst), i * MIB));
            }
            p.awaitSuccesses(p.cqA, 8, 20);

            assertThat(dst.segment().mismatch(src.segment())).as("first differing byte written").isEqualTo(-1);
            assertThat(back.segment().mismatch(src.segment())).as("first differing byte read back").isEqualTo(-1);
            assertThat(p.tapB.port().stats().placedDatagramsReceived()).isPositive();
        }
    }

    @Test
    void aWriteGatheredFromSeveralSgesAndOneAtAnOffsetArriveByteExact() throws Exception {
        QpConfig qp = QpConfig.builder().mtu(4096).build();
        try (UdpDevicePair p = new UdpDevicePair(UdpConfig.builder().backend(UdpConfig.Backend.NATIVE).build(), qp)) {
            MemoryRegion src = p.region(p.pdA, MIB);
            MemoryRegion dst = p.region(p.pdB, 2 * MIB);
            UdpDevicePair.fill(src.segment(), 5);
            WorkRequest wr = new WorkRequest();
            // three SGEs: the sender copies them into one packet; then one SGE at an odd offset
            p.qpA.postSend(wr.clear().wrId(1).opcode(Opcode.RDMA_WRITE).sge(src, 0, 10_000).sge(src, 20_000, 30_001)
                    .sge(src, 100_000, 7).remote(RemoteRegion.of(dst), 3));
            p.qpA.postSend(wr.clear().wrId(2).opcode(Opcode.RDMA_WRITE).sge(src, 12_345, 500_000)
                    .remote(RemoteRegion.of(dst), MIB + 77));
            p.awaitSuccesses(p.cqA, 2, 20);

            var s = src.segment();
            var d = dst.segment();
            assertThat(d.asSlice(3, 10_000).mismatch(s.asSlice(0, 10_000))).isEqualTo(-1);
            assertThat(d.asSlice(10_003, 30_001).mismatch(s.asSlice(20_000, 30_001))).isEqualTo(-1);
            assertThat(d.asSlice(40_004, 7).mismatch(s.asSlice(100_000, 7))).isEqualTo(-1);
            assertThat(d.asSlice(MIB + 77, 500_000).mismatch(s.asSlice(12_345, 500_000))).isEqualTo(-1);
            assertThat(d.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 40_011)).isZero();
            assertThat(d.get(java.lang.foreign.ValueLayout.JAVA_BYTE, MIB + 77 + 500_000)).isZero();
        }
    }
}
