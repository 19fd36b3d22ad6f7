package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * Two soft devices on UDP rails of one JVM ({@link #a} usually the requester), each behind a
 * {@link TapPort}, with a connected queue pair each and a shared arena for buffers. Closes
 * everything, arena last.
 */
final class UdpDevicePair implements AutoCloseable {
    final UdpWire wire;
    final UdpWire wireB;
    final TapPort tapA;
    final TapPort tapB;
    final SoftDevice a;
    final SoftDevice b;
    final ProtectionDomain pdA;
    final ProtectionDomain pdB;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final QueuePair qpA;
    final QueuePair qpB;
    final Arena arena = Arena.ofShared();

    UdpDevicePair(UdpConfig udp, QpConfig qp) {
        this(udp, null, qp);
    }

    /** Devices a and b on wires of their own settings ({@code udpB} null: b shares a's wire). */
    UdpDevicePair(UdpConfig udpA, UdpConfig udpB, QpConfig qp) {
        this(udpA, udpB, SoftConfig.builder(), qp);
    }

    /** As above, both devices with {@code soft}'s settings (their names set here). */
    UdpDevicePair(UdpConfig udpA, UdpConfig udpB, SoftConfig.Builder soft, QpConfig qp) {
        this(udpA, udpB, soft, qp, qp);
    }

    /** As above, with queue pair settings of each side's own (e.g. different MTUs). */
    UdpDevicePair(UdpConfig udpA, UdpConfig udpB, SoftConfig.Builder soft, QpConfig qp, QpConfig qpConfigB) {
        wire = new UdpWire(udpA);
        wireB = udpB == null ? wire : new UdpWire(udpB);
        tapA = new TapPort(wire.bind("udp:127.0.0.1:0"));
        tapB = new TapPort(wireB.bind("udp:127.0.0.1:0"));
        a = SoftDevice.open(tapA, soft.name("udp-a").build());
        b = SoftDevice.open(tapB, soft.name("udp-b").build());
        pdA = a.allocateProtectionDomain();
        pdB = b.allocateProtectionDomain();
        cqA = a.createCompletionQueue(4096);
        cqB = b.createCompletionQueue(4096);
        qpA = a.createQueuePair(pdA, qp, cqA, cqA);
        qpB = b.createQueuePair(pdB, qpConfigB, cqB, cqB);
        qpA.connect(qpB.localInfo());
        qpB.connect(qpA.localInfo());
    }

    /** Zeroed memory of {@code size} bytes registered on {@code pd} with every access. */
    MemoryRegion region(ProtectionDomain pd, long size) {
        return pd.register(arena.allocate(size, 4096), AccessFlags.ALL);
    }

    /**
     * Writes {@code src} to {@code dst} in {@code chunk}-byte RDMA writes (all posted at once,
     * each signaled) and waits for every completion, asserting success.
     */
    void writeAll(MemoryRegion src, MemoryRegion dst, long chunk, long waitSeconds) throws InterruptedException {
        long total = src.length();
        WorkRequest wr = new WorkRequest();
        int n = 0;
        for (long off = 0; off < total; off += chunk, n++) {
            qpA.postSend(wr.clear().wrId(n).opcode(Opcode.RDMA_WRITE).sge(src, off, Math.min(chunk, total - off))
                    .remote(RemoteRegion.of(dst), off));
        }
        awaitSuccesses(cqA, n, waitSeconds);
    }

    /** Waits for {@code n} completions on {@code cq}, each successful, failing after a quiet {@code waitSeconds}. */
    void awaitSuccesses(CompletionQueue cq, int n, long waitSeconds) throws InterruptedException {
        WorkCompletion[] wcs = WorkCompletion.array(256);
        int done = 0;
        while (done < n) {
            int got = cq.await(wcs, waitSeconds, TimeUnit.SECONDS);
            assertThat(got).as("completions after %d of %d; a=%s b=%s", done, n, a.counters(), b.counters())
                    .isPositive();
            for (int i = 0; i < got; i++) {
                assertThat(wcs[i].status()).as("%s", wcs[i]).isEqualTo(io.slime4j.verbs.WcStatus.SUCCESS);
            }
            done += got;
        }
    }

    /** Fills {@code segment} with a pattern derived from {@code seed}. */
    static void fill(MemorySegment segment, long seed) {
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        for (long off = 0; off + 8 <= segment.byteSize(); off += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            segment.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, off, x);
        }
    }

    @Override
    public void close() {
        try {
            b.close();
        } finally {
            try {
                a.close();
            } finally {
                wire.close();
                wireB.close();
                arena.close();
            }
        }
    }
}
