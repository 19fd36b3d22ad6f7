package io.slime4j.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RDMA write, read, send and write-with-immediate between this JVM and a {@link PeerMain} in a
 * child JVM over UDP loopback: at least 64 MiB per opcode (256 MiB in all) in messages from 1 byte
 * to 16 MiB, byte-exact. Each batch of messages covers a fresh pattern, so stale bytes are caught
 * too. Throughput (from the first post of a batch to its last send completion; for sends and
 * writes with immediate the peer's receive completions may come a moment later) is logged, not
 * asserted.
 */
@Timeout(120)
class CrossProcessTransferTest {
    private static final Logger LOG = LoggerFactory.getLogger(CrossProcessTransferTest.class);
    private static final long MIB = 1 << 20;
    private static final long REGION = 64 * MIB;
    private static final long PER_OPCODE = 64 * MIB;
    private static final long[] EDGE_SIZES = {1, 2, 3, 7, 8, 63, 64, 65, 255, 256, 4031, 4032, 4033, 4095, 4096, 4097,
            65_535, 65_536, 65_537, MIB - 1, MIB + 1, 16 * MIB};

    /** Where the sides run when {@link TransferMain} is told (e.g. two network namespaces); defaults: loopback. */
    static List<String> peerPrefix = List.of();
    static String peerBind = "udp:127.0.0.1:0";
    static String localBind = "udp:127.0.0.1:0";
    /** A largest message added to the edge sizes of every opcode (0: none), e.g. 64 MiB. */
    static long largest;

    private PeerProcess peer;
    private LocalSide local;
    private long seed = 1;
    /** Time from the first post of a batch to its last send completion, summed over batches. */
    private long transferNanos;

    @BeforeEach
    void startPeerAndConnect() throws Exception {
        // The default ACK timeout (100 ms). With 20 ms the engine occasionally fails a healthy
        // queue pair with RETRY_EXC_ERR when the kernel drops a burst (its tail-loss probe spends
        // the retry budget every ackTimeout/2 without backoff): an engine issue, reported, not a
        // property of the wire.
        QpConfig qp = QpConfig.defaults();
        peer = new PeerProcess(peerPrefix, peerOptions("--max-seconds", "280", "--bind", peerBind));
        local = newLocalSide("cross-a", qp);
        local.qp.connect(peer.info);
        var info = local.qp.localInfo();
        peer.call("CONNECT " + info.address() + " " + info.qpn() + " " + info.psn() + " " + info.token(), "OK");
    }

    /** The child's options: {@code base} plus what a subclass adds (another device). */
    protected String[] peerOptions(String... base) {
        return base;
    }

    /** This process's side. */
    protected LocalSide newLocalSide(String name, QpConfig qp) {
        return new LocalSide(name, qp, localBind);
    }

    /** What the logged figures are over. */
    protected String transport() {
        return "UDP loopback";
    }

    /** This side's UDP ports (for {@link TransferMain}'s report). */
    List<io.slime4j.wire.udp.UdpPort> localPorts() {
        return local.wire.ports();
    }

    /** The MTU this side's queue pair took. */
    int localMtu() {
        return local.qp.config().mtu();
    }

    @AfterEach
    void stopPeer() {
        try {
            if (peer != null) {
                peer.close();
            }
        } finally {
            if (local != null) {
                local.close();
            }
        }
    }

    @Test
    void writesReadsSendsAndWritesWithImmediateFromOneByteToSixteenMebibytesArriveByteExact() throws Exception {
        MemoryRegion src = local.region(REGION);
        MemoryRegion readInto = local.region(REGION);
        MemorySegment expected = local.arena.allocate(REGION, 4096);
        RemoteRegion dst = peer.region("dst", REGION);
        RemoteRegion rcv = peer.region("rcv", REGION);
        RemoteRegion readFrom = peer.region("rsrc", REGION);
        assertThat(rcv.length()).isEqualTo(REGION);

        long total = 0;
        StringBuilder figures = new StringBuilder();
        Opcode[] opcodes = {Opcode.RDMA_WRITE, Opcode.RDMA_READ, Opcode.SEND, Opcode.RDMA_WRITE_WITH_IMM};
        for (Opcode opcode : opcodes) {
            List<Long> sizes = sizes(opcode.ordinal());
            long bytes = 0;
            transferNanos = 0;
            for (List<Long> batch : batches(sizes)) {
                bytes += runBatch(opcode, batch, src, readInto, expected, dst, readFrom);
            }
            long nanos = transferNanos;
            total += bytes;
            figures.append(String.format(" %s %d MiB in %d messages at %.1f MB/s;", opcode, bytes / MIB, sizes.size(),
                    bytes * 1e3 / nanos));
        }

        LOG.info("{}, two processes:{} this side {}; peer {}", transport(), figures, local.device.counters(),
                peer.call("COUNTERS", "COUNTERS"));
        assertThat(total).as("bytes moved in all").isGreaterThanOrEqualTo(256 * MIB);
        assertThat(local.device.counters().get(Counter.AGENT_ERRORS)).isZero();
    }

    /** The edge sizes, then random sizes up to 16 MiB until the opcode has moved {@link #PER_OPCODE}. */
    private static List<Long> sizes(long salt) {
        List<Long> sizes = new ArrayList<>();
        long sum = 0;
        for (long s : EDGE_SIZES) {
            sizes.add(s);
            sum += s;
        }
        if (largest > 0) {
            sizes.add(largest);
            sum += largest;
        }
        SplittableRandom random = new SplittableRandom(4711 + salt);
        while (sum < PER_OPCODE) {
            long s = 1 + random.nextLong(16 * MIB);
            sizes.add(s);
            sum += s;
        }
        return sizes;
    }

    /** Consecutive sizes grouped so that each group fits in one region. */
    private static List<List<Long>> batches(List<Long> sizes) {
        List<List<Long>> batches = new ArrayList<>();
        List<Long> batch = new ArrayList<>();
        long used = 0;
        for (long s : sizes) {
            if (used + s > REGION) {
                batches.add(batch);
                batch = new ArrayList<>();
                used = 0;
            }
            batch.add(s);
            used += s;
        }
        batches.add(batch);
        return batches;
    }

    /**
     * Moves one batch, each message its own consecutive range starting at 0 (unaligned offsets),
     * and verifies it on the receiving side. Returns the bytes moved.
     */
    private long runBatch(Opcode opcode, List<Long> batch, MemoryRegion src, MemoryRegion readInto,
                          MemorySegment expected, RemoteRegion dst, RemoteRegion readFrom) throws Exception {
        long batchSeed = seed++;
        long used = batch.stream().mapToLong(Long::longValue).sum();
        if (opcode == Opcode.RDMA_READ) {
            peer.call("FILL rsrc " + batchSeed, "OK");
            Pattern.fill(expected, batchSeed);
        } else {
            Pattern.fill(src.segment(), batchSeed);
            peer.call("EXPECT " + batchSeed + " " + REGION, "OK");
        }
        long offset = 0;
        for (int i = 0; i < batch.size(); i++) {
            long size = batch.get(i);
            if (opcode == Opcode.SEND) {
                peer.call("RECV " + i + " rcv " + offset + " " + size, "OK");
            } else if (opcode == Opcode.RDMA_WRITE_WITH_IMM) {
                peer.call("RECV " + i + " rcv 0 0", "OK");
            }
            offset += size;
        }
        WorkRequest wr = new WorkRequest();
        long start = System.nanoTime();
        offset = 0;
        for (int i = 0; i < batch.size(); i++) {
            long size = batch.get(i);
            wr.clear().wrId(i).opcode(opcode);
            switch (opcode) {
                case RDMA_READ -> wr.sge(readInto, offset, size).remote(readFrom, offset);
                case SEND -> wr.sge(src, offset, size);
                case RDMA_WRITE -> wr.sge(src, offset, size).remote(dst, offset);
                case RDMA_WRITE_WITH_IMM -> wr.sge(src, offset, size).remote(dst, offset).immediate(0x5EED0000 + i);
                default -> throw new AssertionError(opcode);
            }
            local.qp.postSend(wr);
            offset += size;
        }
        List<WorkCompletion> done = local.take(batch.size(), 20);
        transferNanos += System.nanoTime() - start;
        assertThat(done).as("send completions of %s batch; this side %s", opcode, local.device.counters())
                .hasSize(batch.size());
        for (int i = 0; i < done.size(); i++) {
            WorkCompletion wc = done.get(i);
            assertThat(wc.wrId()).as("completion order: %s", wc).isEqualTo(i);
            assertThat(wc.status()).as("%s", wc).isEqualTo(WcStatus.SUCCESS);
        }
        if (opcode == Opcode.SEND || opcode == Opcode.RDMA_WRITE_WITH_IMM) {
            String[] r = peer.call("AWAIT_RECV " + batch.size() + " 20000", "RECVD").split(" ");
            assertThat(Integer.parseInt(r[1])).as("receives completed at the peer").isEqualTo(batch.size());
            String[] wcs = r[2].split(",");
            for (int i = 0; i < wcs.length; i++) {
                boolean imm = opcode == Opcode.RDMA_WRITE_WITH_IMM;
                String want = i + "/" + WcStatus.SUCCESS + "/" + (imm ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV) + "/"
                        + batch.get(i) + "/" + (imm ? 0x5EED0000 + i : 0);
                assertThat(wcs[i]).as("receive completion %d at the peer", i).isEqualTo(want);
            }
        }
        if (opcode == Opcode.RDMA_READ) {
            assertThat(Pattern.mismatch(readInto.segment(), 0, used, expected, 0)).as("first wrong byte read back")
                    .isEqualTo(-1);
        } else {
            String region = opcode == Opcode.SEND ? "rcv" : "dst";
            assertThat(peer.call("CHECK " + region + " 0 " + used + " 0", "M")).as("%s batch at the peer", opcode)
                    .isEqualTo("MATCH");
        }
        return used;
    }
}
