package io.slime4j.conformance;

import io.slime4j.soft.SoftCounter;
import static io.slime4j.conformance.Requests.fetchAdd;
import static io.slime4j.conformance.Requests.read;
import static io.slime4j.conformance.Requests.recv;
import static io.slime4j.conformance.Requests.send;
import static io.slime4j.conformance.Requests.sendWithImm;
import static io.slime4j.conformance.Requests.write;
import static io.slime4j.conformance.Requests.writeWithImm;
import static io.slime4j.verbs.WcStatus.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Ordering, segmentation and exactly-once execution: completions in post order, messages
 * segmented by the MTU and reassembled, every message size byte-exact, every write and atomic
 * executed once, packet sequence numbers that wrap, and a bulk transfer of mixed operations.
 *
 * <p>Each device runs it through a subclass in its own package (see {@link DeviceFixture}).
 */
public abstract class OrderingConformance extends ConformanceSuite {
    protected OrderingConformance(DeviceFixture fixture) {
        super(fixture);
    }

    // --------------------------------------------------------------- ordering and segmentation

    @Test
    @Timeout(30)
    public void completionsArriveInPostOrderForMixedSendsAndWrites() {
        QpPair p = pair();
        int n = 200;
        long slot = 8 * KIB;
        long seed = 101;
        MemoryRegion src = p.a.region(n * slot);
        MemoryRegion dst = p.b.region(n * slot);
        MemoryRegion rcv = p.b.region(n * slot);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(dst.segment(), seed);
        Patterns.fillComplement(rcv.segment(), seed);
        RemoteRegion remote = RemoteRegion.of(dst);

        long[] lengths = new long[n];
        List<Integer> sends = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            lengths[i] = 1 + (i * 7919L) % slot; // 1 B .. 8 KiB: one packet or several
            if (i % 3 == 0) {
                sends.add(i);
                p.b.postRecv(recv(1000 + i, rcv, i * slot, slot));
            }
        }
        for (int i = 0; i < n; i++) {
            p.a.post(i % 3 == 0
                    ? send(i, src, i * slot, lengths[i])
                    : write(i, src, i * slot, lengths[i], remote, i * slot));
        }

        List<WorkCompletion> sent = p.a.sendCompletions(n);
        for (int i = 0; i < n; i++) {
            assertCompletion(sent.get(i), i, SUCCESS, i % 3 == 0 ? WcOpcode.SEND : WcOpcode.RDMA_WRITE);
        }
        List<WorkCompletion> received = p.b.recvCompletions(sends.size());
        for (int k = 0; k < sends.size(); k++) {
            int i = sends.get(k);
            assertReceive(received.get(k), 1000 + i, WcOpcode.RECV, lengths[i], null, p.b);
        }
        for (int i = 0; i < n; i++) {
            MemorySegment target = i % 3 == 0 ? rcv.segment() : dst.segment();
            Patterns.assertPattern(target, i * slot, lengths[i], seed, "message " + i);
            Patterns.assertComplement(target, i * slot + lengths[i], slot - lengths[i], seed,
                    "bytes after message " + i);
        }
    }

    @Test
    @Timeout(30)
    public void largeMessagesAreSegmentedByTheMtuAndReassembled() {
        int mtu = 1024;
        QpPair p = pair(qpConfig().mtu(mtu).build());
        long size = 3L * MIB + 17; // not a multiple of the MTU
        long seed = 102;
        MemoryRegion src = p.a.region(2 * size);
        MemoryRegion dst = p.b.region(2 * size); // [0, size) receives the SEND, [size, 2 size) the WRITE
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(dst.segment(), seed);

        p.b.postRecv(recv(1, dst, 0, size));
        p.a.post(send(10, src, 0, size), write(11, src, size, size, RemoteRegion.of(dst), size));

        List<WorkCompletion> sent = p.a.sendCompletions(2);
        assertCompletion(sent.get(0), 10, SUCCESS, WcOpcode.SEND);
        assertCompletion(sent.get(1), 11, SUCCESS, WcOpcode.RDMA_WRITE);
        assertReceive(p.b.recvCompletion(), 1, WcOpcode.RECV, size, null, p.b);
        Patterns.assertPattern(dst.segment(), 0, 2 * size, seed, "reassembled SEND and RDMA_WRITE");

        long packets = 2 * ((size + mtu - 1) / mtu);
        assertThat(p.a.deviceCounter(Counter.PACKETS_SENT))
                .as("packets sent for two messages of %d bytes with an MTU of %d", size, mtu)
                .isGreaterThanOrEqualTo(packets);
        assertThat(p.b.deviceCounter(Counter.PACKETS_RECEIVED))
                .as("packets received for two messages of %d bytes with an MTU of %d", size, mtu)
                .isGreaterThanOrEqualTo(packets);
    }

    // --------------------------------------------------------------------------- message sizes

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Opcode.class,
            names = {"SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ"})
    @Timeout(30)
    public void messagesOfEverySizeAreByteExact(Opcode opcode) {
        int mtu = 1024;
        QpPair p = pair(qpConfig().mtu(mtu).build());
        long seed = 901;
        long guard = 64;
        long[] sizes = {0, 1, mtu - 1, mtu, mtu + 1, 3L * MIB + 5};
        long[] offsets = new long[sizes.length];
        long end = 0;
        for (int k = 0; k < sizes.length; k++) {
            offsets[k] = end + guard;
            end = (offsets[k] + sizes[k] + guard + 4095) & ~4095L;
        }
        MemoryRegion aBuf = p.a.region(end);
        MemoryRegion bBuf = p.b.region(end);
        MemoryRegion bRcv = p.b.region(end);
        boolean read = opcode == Opcode.RDMA_READ;
        // Data flows from a pattern into a buffer holding its complement: the reader's buffer for a READ.
        Patterns.fill(read ? bBuf.segment() : aBuf.segment(), seed);
        Patterns.fillComplement(read ? aBuf.segment() : bBuf.segment(), seed);
        Patterns.fillComplement(bRcv.segment(), seed);
        RemoteRegion remote = RemoteRegion.of(bBuf);

        for (int k = 0; k < sizes.length; k++) {
            long size = sizes[k];
            long off = offsets[k];
            int imm = 0x5EED_0000 + k;
            String what = opcode + " of " + size + " bytes";
            if (opcode.consumesReceive()) {
                // SEND data lands in the receive; RDMA_WRITE_WITH_IMM data does not (it goes to the address).
                p.b.postRecv(recv(100 + k, bRcv, off, opcode == Opcode.RDMA_WRITE_WITH_IMM ? guard : size + guard));
            }
            WorkRequest wr = switch (opcode) {
                case SEND -> send(k, aBuf, off, size);
                case SEND_WITH_IMM -> sendWithImm(k, aBuf, off, size, imm);
                case RDMA_WRITE -> write(k, aBuf, off, size, remote, off);
                case RDMA_WRITE_WITH_IMM -> writeWithImm(k, aBuf, off, size, remote, off, imm);
                case RDMA_READ -> read(k, aBuf, off, size, remote, off);
                default -> throw new AssertionError(opcode);
            };

            WorkCompletion wc = p.a.runOk(wr);

            assertCompletion(wc, k, SUCCESS, opcode.completionOpcode());
            assertThat(wc.byteLength()).as("byteLength of the completion of %s: %s", what, wc).isEqualTo(size);
            if (opcode.consumesReceive()) {
                WcOpcode expected = opcode == Opcode.RDMA_WRITE_WITH_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
                assertReceive(p.b.recvCompletion(), 100 + k, expected, size, opcode.hasImmediate() ? imm : null, p.b);
            }
            MemorySegment landed = switch (opcode) {
                case SEND, SEND_WITH_IMM -> bRcv.segment();
                case RDMA_READ -> aBuf.segment();
                default -> bBuf.segment();
            };
            Patterns.assertPattern(landed, off, size, seed, what);
            Patterns.assertComplement(landed, off - guard, guard, seed, "bytes before " + what);
            Patterns.assertComplement(landed, off + size, guard, seed, "bytes after " + what);
            if (opcode == Opcode.RDMA_WRITE_WITH_IMM) {
                Patterns.assertComplement(bRcv.segment(), off, guard, seed, "receive buffer consumed by " + what);
            }
        }
    }

    // --------------------------------------------------- exactly-once execution, sequence wrap

    @Test
    @Timeout(60)
    public void everyWriteAndAtomicExecutesExactlyOnce() {
        int n = 1000;
        int slots = 64;
        long slot = 4 * KIB;
        QpPair p = pair(qpConfig().sendQueueDepth(2 * n).build());
        long seed = 1101;
        MemoryRegion src = p.a.region(n * slot);
        MemoryRegion results = p.a.region(n * 8L);
        MemoryRegion dst = p.b.region(slots * slot);
        MemoryRegion counter = p.b.region(4 * KIB);
        Patterns.fill(src.segment(), seed);
        RemoteRegion remote = RemoteRegion.of(dst);
        RemoteRegion word = RemoteRegion.of(counter);

        // Write i copies src slot i (a pattern unique to i) over dst slot i % 64: a stale write replayed
        // after a newer one would leave old bytes. Each FETCH_ADD returns the count of the ones before it.
        for (int i = 0; i < n; i++) {
            p.a.post(write(2L * i, src, i * slot, slot, remote, (i % slots) * slot),
                    fetchAdd(2L * i + 1, results, 8L * i, word, 0, 1));
        }

        List<WorkCompletion> wcs = p.a.sendCompletions(2 * n);
        for (int i = 0; i < 2 * n; i++) {
            assertCompletion(wcs.get(i), i, SUCCESS, i % 2 == 0 ? WcOpcode.RDMA_WRITE : WcOpcode.FETCH_ADD);
        }
        assertThat(counter.segment().get(ValueLayout.JAVA_LONG, 0)).as("counter after %d FETCH_ADDs of 1", n)
                .isEqualTo(n);
        for (int i = 0; i < n; i++) {
            assertThat(results.segment().get(ValueLayout.JAVA_LONG, 8L * i)).as("old value returned by FETCH_ADD %d", i)
                    .isEqualTo(i);
        }
        for (int s = 0; s < slots; s++) {
            int last = s + ((n - 1 - s) / slots) * slots;
            Patterns.assertPattern(dst.segment(), s * slot, slot, seed, last * slot,
                    "slot " + s + " (last written by write " + last + ")");
        }
    }

    @Test
    @Timeout(60)
    public void packetSequenceNumbersWrapAroundWithoutLossOrTimeout() {
        long initialPsn = 0xFFFF_FF00L; // 256 packets before 2^32
        int mtu = QpConfig.MIN_MTU;
        QpConfig.Builder builder = qpConfig().initialPsn(initialPsn).mtu(mtu);
        if (!faultsInjected()) {
            builder.ackTimeout(Duration.ofSeconds(1)); // no spurious timeout on a busy machine
        }
        long kernelDropsBefore = UdpKernelDrops.now();
        QpPair p = pair(builder.build());
        assertThat(p.a.qp.localInfo().psn()).as("first PSN of a").isEqualTo((int) initialPsn);
        assertThat(p.b.qp.localInfo().psn()).as("first PSN of b").isEqualTo((int) initialPsn);

        long seed = 1102;
        long chunk = 64 * KIB; // 256 packets at the minimum MTU
        int writes = 8; // 2048 packets each way, well past the wrap
        MemoryRegion aBuf = p.a.region(writes * chunk * 2);
        MemoryRegion bBuf = p.b.region(writes * chunk * 2);
        MemoryRegion aRcv = p.a.region(chunk);
        MemoryRegion bRcv = p.b.region(chunk);
        // a's first half flows to b, b's second half flows to a.
        Patterns.fill(aBuf.segment().asSlice(0, writes * chunk), seed);
        Patterns.fillComplement(bBuf.segment().asSlice(0, writes * chunk), seed);
        Patterns.fill(bBuf.segment().asSlice(writes * chunk, writes * chunk), seed + 1);
        Patterns.fillComplement(aBuf.segment().asSlice(writes * chunk, writes * chunk), seed + 1);
        Patterns.fillComplement(aRcv.segment(), seed + 1);
        Patterns.fillComplement(bRcv.segment(), seed);
        p.a.postRecv(recv(1, aRcv, 0, chunk));
        p.b.postRecv(recv(2, bRcv, 0, chunk));

        for (int i = 0; i < writes; i++) {
            p.a.post(write(i, aBuf, i * chunk, chunk, RemoteRegion.of(bBuf), i * chunk));
            p.b.post(write(i, bBuf, (writes + i) * chunk, chunk, RemoteRegion.of(aBuf), (writes + i) * chunk));
        }
        p.a.post(send(writes, aBuf, 0, chunk));
        p.b.post(send(writes, bBuf, writes * chunk, chunk));

        List<WorkCompletion> aDone = p.a.sendCompletions(writes + 1);
        List<WorkCompletion> bDone = p.b.sendCompletions(writes + 1);
        for (int i = 0; i <= writes; i++) {
            WcOpcode op = i < writes ? WcOpcode.RDMA_WRITE : WcOpcode.SEND;
            assertCompletion(aDone.get(i), i, SUCCESS, op);
            assertCompletion(bDone.get(i), i, SUCCESS, op);
        }
        assertReceive(p.b.recvCompletion(), 2, WcOpcode.RECV, chunk, null, p.b);
        assertReceive(p.a.recvCompletion(), 1, WcOpcode.RECV, chunk, null, p.a);
        Patterns.assertPattern(bBuf.segment(), 0, writes * chunk, seed, "a's writes across the PSN wrap");
        Patterns.assertPattern(aBuf.segment(), writes * chunk, writes * chunk, seed + 1, 0,
                "b's writes across the PSN wrap");
        Patterns.assertPattern(bRcv.segment(), 0, chunk, seed, "a's SEND after the wrap");
        Patterns.assertPattern(aRcv.segment(), 0, chunk, seed + 1, "b's SEND after the wrap");

        // An RDMA_READ after the wrap, too.
        MemoryRegion readBack = p.a.region(chunk);
        Patterns.fillComplement(readBack.segment(), seed);
        p.a.runOk(read(99, readBack, 0, chunk, RemoteRegion.of(bBuf), 0));
        Patterns.assertPattern(readBack.segment(), 0, chunk, seed, "READ after the wrap");

        // Without faults nothing is resent for a loss the peer reported or a timer found: no
        // retransmit timeout (1 s) and no error NAK in either direction, which is how a PSN that the
        // receiver misreads across the wrap shows. A spurious early resend (the soft engine's tail
        // probe or time-based loss detection after a thread stalled; seen about 1 run in 10 on the
        // in-process wire) only duplicates a packet, and the bytes above are checked either way.
        // Unless the kernel itself dropped a datagram meanwhile (a full receive buffer on
        // loopback): then NAKs and resends are the engine doing its job.
        if (!faultsInjected() && UdpKernelDrops.now() == kernelDropsBefore) {
            assertNothingResentForALoss(p.a, "a");
            assertNothingResentForALoss(p.b, "b");
        }
    }

    private static void assertNothingResentForALoss(QpPair.Side side, String name) {
        assertThat(side.qpCounter(Counter.TIMEOUTS)).as("retransmit timeouts of " + name + " without faults").isZero();
        assertThat(side.qpCounter(Counter.NAKS_SENT)).as("error NAKs sent by " + name + " without faults").isZero();
        assertThat(side.qpCounter(Counter.NAKS_RECEIVED)).as("error NAKs received by " + name + " without faults")
                .isZero();
    }

    // --------------------------------------------------------------------------- bulk transfer

    @Test
    @Timeout(60)
    public void aBulkTransferOfMixedOperationsIsByteExact() {
        QpPair p = pair();
        long total = 32L * MIB;
        long seed = 1401;
        MemoryRegion aBuf = p.a.region(total);
        MemoryRegion bBuf = p.b.region(total);
        MemoryRegion bRcv = p.b.region(total);
        Patterns.fill(aBuf.segment(), seed);
        Patterns.fillComplement(bBuf.segment(), seed);
        Patterns.fillComplement(bRcv.segment(), seed);
        RemoteRegion remote = RemoteRegion.of(bBuf);

        // Each operation owns its own range [offset, offset + size) of the 32 MiB, in every buffer.
        record Op(Opcode opcode, long offset, long size) {}
        Opcode[] kinds = {Opcode.RDMA_WRITE, Opcode.RDMA_READ, Opcode.SEND, Opcode.RDMA_WRITE_WITH_IMM};
        SplittableRandom random = new SplittableRandom(seed);
        List<Op> ops = new ArrayList<>();
        for (long offset = 0; offset < total; ) {
            long size = Math.min(1 + random.nextInt(MIB), total - offset);
            ops.add(new Op(kinds[random.nextInt(kinds.length)], offset, size));
            offset += size;
        }
        // Writes, sends and write-with-imms carry a's pattern into b's complement; a READ carries b's
        // complement back over a's pattern. Either way every byte that does not arrive is caught.
        List<Integer> consumers = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            if (op.opcode().consumesReceive()) {
                consumers.add(i);
                p.b.postRecv(recv(i, bRcv, op.offset(), op.opcode() == Opcode.SEND ? op.size() : 8));
            }
        }
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            p.a.post(switch (op.opcode()) {
                case RDMA_WRITE -> write(i, aBuf, op.offset(), op.size(), remote, op.offset());
                case RDMA_READ -> read(i, aBuf, op.offset(), op.size(), remote, op.offset());
                case SEND -> send(i, aBuf, op.offset(), op.size());
                case RDMA_WRITE_WITH_IMM -> writeWithImm(i, aBuf, op.offset(), op.size(), remote, op.offset(), i);
                default -> throw new AssertionError(op);
            });
        }

        List<WorkCompletion> sent = p.a.sendCompletions(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            assertCompletion(sent.get(i), i, SUCCESS, ops.get(i).opcode().completionOpcode());
        }
        List<WorkCompletion> received = p.b.recvCompletions(consumers.size());
        for (int k = 0; k < consumers.size(); k++) {
            int i = consumers.get(k);
            Op op = ops.get(i);
            boolean imm = op.opcode() == Opcode.RDMA_WRITE_WITH_IMM;
            assertReceive(received.get(k), i, imm ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV, op.size(),
                    imm ? i : null, p.b);
        }
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            String what = op.opcode() + " " + i + " of " + op.size() + " bytes at " + op.offset();
            switch (op.opcode()) {
                case RDMA_WRITE, RDMA_WRITE_WITH_IMM ->
                        Patterns.assertPattern(bBuf.segment(), op.offset(), op.size(), seed, what);
                case SEND -> Patterns.assertPattern(bRcv.segment(), op.offset(), op.size(), seed, what);
                case RDMA_READ -> {
                    Patterns.assertComplement(aBuf.segment(), op.offset(), op.size(), seed, what);
                    Patterns.assertComplement(bBuf.segment(), op.offset(), op.size(), seed, "source of " + what);
                }
                default -> throw new AssertionError(op);
            }
        }

        if (faultsInjected()) {
            long retransmits = p.a.deviceCounter(Counter.RETRANSMITS) + p.b.deviceCounter(Counter.RETRANSMITS)
                    + p.a.qpCounter(Counter.RETRANSMITS) + p.b.qpCounter(Counter.RETRANSMITS);
            assertThat(retransmits).as("retransmissions on a faulty wire (devices and queue pairs)").isPositive();
            assertThat(Math.max(p.b.deviceCounter(Counter.DUPLICATES), p.b.qpCounter(Counter.DUPLICATES)))
                    .as("duplicates seen by the receiving side on a faulty wire").isPositive();
        }
    }
}
