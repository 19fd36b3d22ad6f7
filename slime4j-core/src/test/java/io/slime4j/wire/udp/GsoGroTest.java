package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * UDP GSO on send and GRO on receive over loopback, with the path MTU set to Ethernet's 1,500 bytes
 * so that the engine's packets are small enough for the kernel to batch: writes, reads and sends
 * arrive byte-exact, bursts leave in single {@code sendmsg} calls and arrive coalesced; with the
 * offloads off (configured, or the NIO backend) the same transfer works one datagram per call.
 */
@Timeout(120)
class GsoGroTest {
    private static final long MIB = 1 << 20;

    @BeforeAll
    static void nativeBackendAvailable() {
        assertThat(UdpConfig.Backend.nativeUnavailability()).as("native udp backend unavailable").isNull();
    }

    private static UdpConfig config(UdpConfig.Backend backend, boolean offloads) {
        return UdpConfig.builder().backend(backend).pathMtu(1500).gso(offloads).gro(offloads).build();
    }

    @Test
    void burstsLeaveInOneCallEachAndArriveCoalescedAndEveryOpIsByteExact() throws Exception {
        try (Pair p = new Pair(config(UdpConfig.Backend.NATIVE, true))) {
            assertThat(p.portA.offloads()).isEqualTo("gso on, gro on");
            assertThat(p.qpA.config().mtu()).as("payload per packet at a path MTU of 1500").isEqualTo(1500 - 28 - 64);
            p.transferEveryOp(32 * MIB);
            UdpPortStats a = p.portA.stats();
            UdpPortStats b = p.portB.stats();
            LoggerFactory.getLogger(GsoGroTest.class).info("GSO/GRO over loopback at a path MTU of 1500: a={} b={}",
                    a, b);
            assertThat(a.gsoSends()).as("GSO sends at a: %s", a).isPositive();
            assertThat(a.datagramsSent()).as("several datagrams per GSO send: %s", a).isGreaterThan(4 * a.gsoSends());
            assertThat(a.gsoBatches()).as("several runs in one sendmmsg: %s", a).isPositive();
            assertThat(b.coalescedDatagramsReceived()).as("coalesced at b: %s", b).isPositive();
            assertThat(b.groReceives()).isPositive().isLessThan(b.coalescedDatagramsReceived());
            assertThat(b.placedDatagramsReceived()).as("first of a coalesced run still placed: %s", b).isPositive();
            assertThat(a.sendErrors() + b.sendErrors() + a.receiveErrors() + b.receiveErrors()).isZero();
        }
    }

    @Test
    void withTheOffloadsConfiguredOffTheNativeWireSendsOneDatagramPerCallAndSaysSo() throws Exception {
        try (Pair p = new Pair(config(UdpConfig.Backend.NATIVE, false))) {
            assertThat(p.portA.offloads()).isEqualTo("gso off (configured), gro off (configured)");
            p.transferEveryOp(8 * MIB);
            assertThat(p.portA.stats().gsoSends()).isZero();
            assertThat(p.portB.stats().coalescedDatagramsReceived()).isZero();
        }
    }

    @Test
    void theNioBackendHasNoOffloadsAndSaysSoAndTransfersTheSame() throws Exception {
        try (Pair p = new Pair(config(UdpConfig.Backend.NIO, true))) {
            assertThat(p.portA.offloads()).contains("gso off", "gro off", "nio");
            assertThat(p.qpA.config().mtu()).isEqualTo(1408);
            p.transferEveryOp(8 * MIB);
            assertThat(p.portA.stats().gsoSends()).isZero();
        }
    }

    /** Two devices on native or NIO rails of their own, with one queue pair each, connected. */
    private static final class Pair implements AutoCloseable {
        final UdpWire wire;
        final UdpPort portA;
        final UdpPort portB;
        final SoftDevice a;
        final SoftDevice b;
        final ProtectionDomain pdA;
        final ProtectionDomain pdB;
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final QueuePair qpA;
        final QueuePair qpB;
        final Arena arena = Arena.ofShared();

        Pair(UdpConfig config) {
            wire = new UdpWire(config);
            portA = wire.bind("udp:127.0.0.1:0");
            portB = wire.bind("udp:127.0.0.1:0");
            a = SoftDevice.open(portA, SoftConfig.builder().name("gso-a").build());
            b = SoftDevice.open(portB, SoftConfig.builder().name("gso-b").build());
            pdA = a.allocateProtectionDomain();
            pdB = b.allocateProtectionDomain();
            cqA = a.createCompletionQueue(4096);
            cqB = b.createCompletionQueue(4096);
            qpA = a.createQueuePair(pdA, QpConfig.defaults(), cqA, cqA);
            qpB = b.createQueuePair(pdB, QpConfig.defaults(), cqB, cqB);
            qpA.connect(qpB.localInfo());
            qpB.connect(qpA.localInfo());
        }

        MemoryRegion region(ProtectionDomain pd, long size) {
            return pd.register(arena.allocate(size, 4096), AccessFlags.ALL);
        }

        /** RDMA writes of 1 MiB, then reads back in 1 MiB pieces, then 64 sends of 64 KiB; all checked. */
        void transferEveryOp(long total) throws InterruptedException {
            MemoryRegion src = region(pdA, total);
            MemoryRegion dst = region(pdB, total);
            MemoryRegion back = region(pdA, total);
            UdpDevicePair.fill(src.segment(), 14);
            WorkRequest wr = new WorkRequest();
            int n = 0;
            for (long off = 0; off < total; off += MIB, n++) {
                qpA.postSend(wr.clear().wrId(n).opcode(Opcode.RDMA_WRITE).sge(src, off, MIB)
                        .remote(RemoteRegion.of(dst), off));
            }
            await(cqA, n);
            assertThat(dst.segment().mismatch(src.segment())).as("first differing byte of the writes").isEqualTo(-1);
            n = 0;
            for (long off = 0; off < total; off += MIB, n++) {
                qpA.postSend(wr.clear().wrId(n).opcode(Opcode.RDMA_READ).sge(back, off, MIB)
                        .remote(RemoteRegion.of(dst), off));
            }
            await(cqA, n);
            assertThat(back.segment().mismatch(src.segment())).as("first differing byte of the reads").isEqualTo(-1);
            int sends = 64;
            long piece = 64 << 10;
            MemoryRegion inbox = region(pdB, sends * piece);
            for (int i = 0; i < sends; i++) {
                qpB.postRecv(wr.clear().wrId(i).sge(inbox, i * piece, piece));
            }
            for (int i = 0; i < sends; i++) {
                qpA.postSend(wr.clear().wrId(i).opcode(Opcode.SEND).sge(src, i * piece, piece));
            }
            await(cqA, sends);
            await(cqB, sends);
            assertThat(inbox.segment().mismatch(src.segment().asSlice(0, sends * piece)))
                    .as("first differing byte of the sends").isEqualTo(-1);
            assertThat(a.counters().get(Counter.AGENT_ERRORS) + b.counters().get(Counter.AGENT_ERRORS)).isZero();
        }

        private void await(CompletionQueue cq, int n) throws InterruptedException {
            WorkCompletion[] wcs = WorkCompletion.array(256);
            int done = 0;
            while (done < n) {
                int got = cq.await(wcs, 20, TimeUnit.SECONDS);
                assertThat(got).as("completions after %d of %d; a=%s b=%s; ports a=%s b=%s", done, n, a.counters(),
                        b.counters(), portA.stats(), portB.stats()).isPositive();
                for (int i = 0; i < got; i++) {
                    assertThat(wcs[i].status()).as("%s", wcs[i]).isEqualTo(io.slime4j.verbs.WcStatus.SUCCESS);
                }
                done += got;
            }
        }

        @Override
        public void close() {
            try {
                b.close();
                a.close();
            } finally {
                wire.close();
                arena.close();
            }
        }
    }
}
