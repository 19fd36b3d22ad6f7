package io.slime4j.wire.inproc;

import io.slime4j.wire.WireAddress;
import io.slime4j.wire.WirePort;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(20)
class ConcurrentSendersTest {

    private static final int SENDERS = 4;
    private static final int PACKETS_PER_SENDER = 50_000;

    @Test
    void fourSendersToOnePortLoseNothingAndKeepEachSendersOrderPerChannel() throws Exception {
        try (InprocWire wire = new InprocWire()) {
            WirePort receiver = wire.bind("sink");
            Thread receiving = Thread.currentThread();
            receiver.onReceivable(() -> LockSupport.unpark(receiving));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int s = 0; s < SENDERS; s++) {
                WirePort port = wire.bind("sender-" + s);
                threads.add(Thread.ofPlatform().name("sender-" + s).start(() -> {
                    try {
                        start.await();
                        sendAll(port, receiver.localAddress());
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                }));
            }

            start.countDown();
            Map<String, Integer> next = new HashMap<>();
            List<String> errors = new ArrayList<>();
            int total = 0;
            while (total < SENDERS * PACKETS_PER_SENDER && failure.get() == null) {
                int n = receiver.receive((packet, length, from) -> {
                    int seq = packet.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
                    String channel = from.text() + (packet.get(ValueLayout.JAVA_BYTE, 4) == 1 ? "/priority" : "/data");
                    int expected = next.getOrDefault(channel, 0);
                    if (seq != expected || length != 64) {
                        errors.add(channel + " sent " + seq + " (" + length + " bytes), expected " + expected);
                    }
                    next.put(channel, seq + 1);
                }, 256);
                total += n;
                if (n == 0) {
                    LockSupport.parkNanos(50_000);
                }
            }
            for (Thread t : threads) {
                t.join();
            }

            assertThat(failure.get()).isNull();
            assertThat(errors).isEmpty();
            assertThat(next.values()).hasSize(2 * SENDERS);
            assertThat(next.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(SENDERS * PACKETS_PER_SENDER);
            FaultStats stats = wire.faultStats();
            assertThat(stats.packetsDelivered()).isEqualTo((long) SENDERS * PACKETS_PER_SENDER);
            assertThat(stats.packetsSent()).isEqualTo(stats.packetsDelivered() + stats.queueFullDrops());
        }
    }

    /**
     * Sends 64-byte packets, every eighth on the priority channel, numbered per channel; retries
     * those refused because the queue was full.
     */
    private static void sendAll(WirePort port, WireAddress to) {
        MemorySegment packet = MemorySegment.ofArray(new byte[64]);
        int[] seq = new int[2];
        for (int i = 0; i < PACKETS_PER_SENDER; i++) {
            boolean priority = (i & 7) == 0;
            int channel = priority ? 1 : 0;
            packet.set(ValueLayout.JAVA_INT_UNALIGNED, 0, seq[channel]++);
            packet.set(ValueLayout.JAVA_BYTE, 4, (byte) channel);
            while (!port.send(to, packet, 64, priority)) {
                Thread.yield();
            }
        }
    }
}
