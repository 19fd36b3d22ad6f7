package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two soft devices of one JVM over UDP loopback: bulk transfers arrive byte-exact and the traffic
 * shows in the port statistics. Throughput is logged (a figure, not an assertion).
 */
@Timeout(60)
class UdpDeviceTest {
    private static final Logger LOG = LoggerFactory.getLogger(UdpDeviceTest.class);
    private static final long MIB = 1 << 20;

    @Test
    void aSixtyFourMebibyteWriteAndReadBackOverLoopbackAreByteExact() throws Exception {
        // The default ACK timeout (100 ms). With 20 ms the engine occasionally fails a healthy
        // queue pair with RETRY_EXC_ERR when the kernel drops a burst (its tail-loss probe spends
        // the retry budget every ackTimeout/2 without backoff): an engine issue, reported, not a
        // property of the wire.
        QpConfig qp = QpConfig.defaults();
        try (UdpDevicePair p = new UdpDevicePair(UdpConfig.defaults(), qp)) {
            long total = 64 * MIB;
            MemoryRegion src = p.region(p.pdA, total);
            MemoryRegion dst = p.region(p.pdB, total);
            MemoryRegion back = p.region(p.pdA, total);
            UdpDevicePair.fill(src.segment(), 64);

            long start = System.nanoTime();
            p.writeAll(src, dst, 4 * MIB, 10);
            long writeNanos = System.nanoTime() - start;
            assertThat(dst.segment().mismatch(src.segment())).as("first differing byte of the write").isEqualTo(-1);

            start = System.nanoTime();
            WorkRequest wr = new WorkRequest();
            int reads = 0;
            for (long off = 0; off < total; off += 4 * MIB, reads++) {
                p.qpA.postSend(wr.clear().wrId(reads).opcode(Opcode.RDMA_READ).sge(back, off, 4 * MIB)
                        .remote(RemoteRegion.of(dst), off));
            }
            p.awaitSuccesses(p.cqA, reads, 10);
            long readNanos = System.nanoTime() - start;
            assertThat(back.segment().mismatch(src.segment())).as("first differing byte of the read").isEqualTo(-1);

            LOG.info("UDP loopback, one JVM: 64 MiB RDMA_WRITE {} MB/s, RDMA_READ {} MB/s; a={} b={}; ports a={} b={}",
                    mbPerSecond(total, writeNanos), mbPerSecond(total, readNanos), p.a.counters(), p.b.counters(),
                    p.tapA.port().stats(), p.tapB.port().stats());
            // the default MTU comes from the path: 60 KiB on loopback, so at least one datagram per 60 KiB
            assertThat(p.qpA.config().mtu()).as("the MTU chosen for loopback").isEqualTo(QpConfig.DEFAULT_MAX_MTU);
            assertThat(p.tapA.port().stats().datagramsSent()).isGreaterThanOrEqualTo(total / QpConfig.DEFAULT_MAX_MTU);
            assertThat(p.tapA.port().stats().priorityDatagramsReceived()).as("ACKs on the priority channel").isPositive();
            assertThat(p.a.counters().get(Counter.AGENT_ERRORS) + p.b.counters().get(Counter.AGENT_ERRORS)).isZero();
        }
    }

    static String mbPerSecond(long bytes, long nanos) {
        return String.format("%.1f", bytes * 1e3 / nanos);
    }
}
