package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpPort;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Coalescing over real loopback sockets, both UDP backends: small writes posted before one turn
 * leave in fewer datagrams than packets by the port's own count, and each arrives and executes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CoalescingOverUdpTest {
    private static final int N = 24;
    private static final int SIZE = 32;

    @ParameterizedTest
    @EnumSource(value = UdpConfig.Backend.class, names = {"NIO", "NATIVE"})
    void smallWritesInOneTurnTakeFewerDatagramsThanPacketsOnTheSocket(UdpConfig.Backend backend) {
        try (UdpWire wire = new UdpWire(UdpConfig.builder().backend(backend).build());
             Arena arena = Arena.ofShared()) {
            UdpPort portA = wire.bind("udp:127.0.0.1:0");
            UdpPort portB = wire.bind("udp:127.0.0.1:0");
            SoftDevice a = SoftDevice.openUndriven(portA, SoftConfig.builder().name("coal-udp-a").build());
            SoftDevice b = SoftDevice.openUndriven(portB, SoftConfig.builder().name("coal-udp-b").build());
            try {
                QpConfig config = QpConfig.defaults().toBuilder().mtu(4096).build();
                ProtectionDomain pdA = a.allocateProtectionDomain();
                ProtectionDomain pdB = b.allocateProtectionDomain();
                CompletionQueue cqA = a.createCompletionQueue(2 * N);
                CompletionQueue cqB = b.createCompletionQueue(2 * N);
                QueuePair qpA = a.createQueuePair(pdA, config, cqA, cqA);
                QueuePair qpB = b.createQueuePair(pdB, config, cqB, cqB);
                ConnectedQueuePairs.connect(qpA, qpB);
                MemorySegment src = arena.allocate((long) N * SIZE);
                for (int i = 0; i < N * SIZE; i++) {
                    src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 1));
                }
                MemoryRegion source = pdA.register(src, AccessFlags.LOCAL_WRITE);
                MemoryRegion target = pdB.register(arena.allocate((long) N * SIZE), AccessFlags.ALL);
                long sentBefore = portA.stats().datagramsSent();
                for (int i = 0; i < N; i++) {
                    qpA.postSend(new WorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE).signaled(true)
                            .sge(source, (long) i * SIZE, SIZE).remote(target.address() + (long) i * SIZE,
                                    target.remoteKey()));
                }
                a.doWork(System.nanoTime());

                long datagrams = portA.stats().datagramsSent() - sentBefore;
                assertThat(a.counters().get(Counter.PACKETS_SENT)).isEqualTo(N);
                assertThat(datagrams).as("datagrams on the socket for %d packets", N).isLessThan(N).isLessThanOrEqualTo(2);
                assertThat(a.protocolCounters().get(SoftCounter.DATAGRAMS_SENT)).isEqualTo(datagrams);

                WorkCompletion[] wc = WorkCompletion.array(2 * N);
                int completed = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (completed < N && System.nanoTime() < deadline) {
                    b.doWork(System.nanoTime());
                    a.doWork(System.nanoTime());
                    int n = cqA.poll(wc);
                    for (int i = 0; i < n; i++) {
                        assertThat(wc[i].status()).isEqualTo(WcStatus.SUCCESS);
                    }
                    completed += n;
                }
                assertThat(completed).isEqualTo(N);
                assertThat(b.counters().get(Counter.PACKETS_RECEIVED)).isEqualTo(N);
                assertThat(b.protocolCounters().get(SoftCounter.BUNDLES_RECEIVED)).isPositive();
                assertThat(b.protocolCounters().get(SoftCounter.BAD_BUNDLES)).isZero();
                assertThat(target.segment().mismatch(source.segment())).as("the bytes arrived").isEqualTo(-1);
            } finally {
                a.close();
                b.close();
            }
        }
    }
}
