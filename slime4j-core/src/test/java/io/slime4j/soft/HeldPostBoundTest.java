package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A post held for a default device's next duty cycle ({@code WorkRequest.more} while its agent
 * rests and no waiter drives it: {@link PostRoute#HOLD}) is not stranded when its poster never
 * posts or waits again: it leaves when the agent's rest under way ends (rests double from
 * {@link ProgressAgent#STAND_ASIDE_NANOS} up to {@link ProgressAgent#BLOCKING_STAND_ASIDE_MAX_NANOS},
 * 1 ms; the agent, woken by the post, then sends it in its send-only cycle or its next cycle). A
 * thread waits for a receive on device B, which makes B's agent stand aside while the waiter drives
 * B; the moment its receive completes it posts a send saying more will follow, and then does
 * nothing. The bound asserted, 200 ms, is a margin for a loaded machine far above the rests here
 * (a few milliseconds at most: the waiter drives B for about 3 ms), so the test catches a stranded
 * post or rests grown long from the start, not a larger cap alone. Over UDP loopback, native backend
 * (the waiter blocks on B's sockets through epoll).
 */
@Timeout(60)
class HeldPostBoundTest {
    private static final int ATTEMPTS = 60;
    private static final int SIZE = 64;
    /** Far above the rests here and a loaded machine's stalls; a stranded post would never arrive. */
    private static final long BOUND_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    @Test
    void aHeldPostWhosePosterGoesQuietLeavesWithinTheAgentsRest() throws Exception {
        assertThat(UdpConfig.Backend.nativeUnavailability()).as("native udp backend unavailable").isNull();
        try (UdpWire wire = new UdpWire(UdpConfig.defaults().toBuilder().backend(UdpConfig.Backend.NATIVE).build());
             Arena arena = Arena.ofShared();
             SoftDevice a = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("held-a").build());
             SoftDevice b = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("held-b").build());
             ExecutorService bThread = Executors.newSingleThreadExecutor()) {
            ProtectionDomain pdA = a.allocateProtectionDomain();
            ProtectionDomain pdB = b.allocateProtectionDomain();
            CompletionQueue cqA = a.createCompletionQueue(64);
            CompletionQueue cqB = b.createCompletionQueue(64);
            QueuePair qpA = a.createQueuePair(pdA, QpConfig.defaults(), cqA, cqA);
            QueuePair qpB = b.createQueuePair(pdB, QpConfig.defaults(), cqB, cqB);
            ConnectedQueuePairs.connect(qpA, qpB);
            MemoryRegion bufA = pdA.register(arena.allocate(2 * SIZE), AccessFlags.ALL);
            MemoryRegion bufB = pdB.register(arena.allocate(2 * SIZE), AccessFlags.ALL);
            WorkCompletion[] wcA = WorkCompletion.array(8);

            int held = 0;
            long slowest = 0;
            for (int i = 0; i < ATTEMPTS && held < 5; i++) {
                qpA.postRecv(new WorkRequest().wrId(i).sge(bufA, SIZE, SIZE)); // for B's reply
                qpB.postRecv(new WorkRequest().wrId(i).sge(bufB, 0, SIZE));
                long heldBefore = b.protocolCounters().get(SoftCounter.POSTS_HELD);
                Future<Long> posted = bThread.submit(() -> {
                    WorkCompletion[] wc = WorkCompletion.array(8);
                    boolean received = false;
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (!received && System.nanoTime() < until) {
                        int n = cqB.await(wc, 100, TimeUnit.MILLISECONDS); // drives B: its agent stands aside
                        for (int k = 0; k < n; k++) { // B's earlier sends complete here too
                            assertThat(wc[k].status()).isEqualTo(WcStatus.SUCCESS);
                            received |= wc[k].opcode() == WcOpcode.RECV;
                        }
                    }
                    assertThat(received).as("B's receive").isTrue();
                    long at = System.nanoTime();
                    qpB.postSend(new WorkRequest().wrId(1000L).opcode(Opcode.SEND).signaled(false)
                            .sge(bufB, SIZE, SIZE).more(true)); // ... and then nothing more from B
                    return at;
                });
                Thread.sleep(3); // B's waiter blocks and its agent goes to rest
                qpA.postSend(new WorkRequest().wrId(i).opcode(Opcode.SEND).signaled(false).sge(bufA, 0, SIZE));
                long postedAt = posted.get(10, TimeUnit.SECONDS);
                long arrivedAt = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (arrivedAt == 0 && System.nanoTime() < deadline) {
                    int n = cqA.await(wcA, 100, TimeUnit.MILLISECONDS);
                    for (int k = 0; k < n; k++) {
                        assertThat(wcA[k].status()).isEqualTo(WcStatus.SUCCESS);
                        if (wcA[k].opcode() == WcOpcode.RECV) {
                            arrivedAt = System.nanoTime();
                        }
                    }
                }
                assertThat(arrivedAt).as("B's send arrived at A (attempt %d)", i).isPositive();
                if (b.protocolCounters().get(SoftCounter.POSTS_HELD) > heldBefore) {
                    held++;
                    slowest = Math.max(slowest, arrivedAt - postedAt);
                }
            }
            assertThat(held).as("posts B held for its next cycle in %d attempts", ATTEMPTS).isPositive();
            assertThat(slowest).as("the slowest held post's time to arrive, ns").isLessThan(BOUND_NANOS);
        }
    }
}
