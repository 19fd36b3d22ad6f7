package io.slime4j.cli;

import io.slime4j.soft.SoftCounters;
import io.slime4j.soft.SoftCounter;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import io.slime4j.wire.inproc.FaultConfig;
import io.slime4j.wire.inproc.InprocWire;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@code slime4j demo}: two devices on the in-process wire, one queue pair each; moves a buffer
 * with RDMA write, reads it back with RDMA read, sends it with SEND_WITH_IMM and signals with
 * RDMA_WRITE_WITH_IMM, checks every byte, and prints rates and transport counters.
 */
final class Demo {
    private static final long WAIT_SECONDS = 30;

    private Demo() {}

    /** Runs the demo with {@code size} bytes per transfer and {@code loss} (0..0.5) drop, duplication and reordering. */
    static int run(long size, double loss, PrintStream out) throws InterruptedException {
        FaultConfig faults = loss == 0 ? FaultConfig.NONE : FaultConfig.builder().seed(42)
                .dropRate(loss).duplicateRate(loss).reorderRate(loss).build();
        try (InprocWire wire = new InprocWire(faults);
             SoftDevice a = SoftDevice.open(wire, "alice", SoftConfig.builder().name("alice").build());
             SoftDevice b = SoftDevice.open(wire, "bob", SoftConfig.builder().name("bob").build());
             Arena arena = Arena.ofShared()) {
            out.printf("slime4j demo: devices %s and %s on the in-process wire%s%n", a.address(), b.address(),
                    loss == 0 ? "" : String.format(" with %.1f%% drop, duplication and reordering", loss * 100));
            ProtectionDomain pdA = a.allocateProtectionDomain();
            ProtectionDomain pdB = b.allocateProtectionDomain();
            CompletionQueue cqA = a.createCompletionQueue(64);
            CompletionQueue cqB = b.createCompletionQueue(64);
            QpConfig config = QpConfig.defaults();
            QueuePair qpA = a.createQueuePair(pdA, config, cqA, cqA);
            QueuePair qpB = b.createQueuePair(pdB, config, cqB, cqB);
            qpA.connect(qpB.localInfo());
            qpB.connect(qpA.localInfo());
            out.printf("connected QP %d <-> QP %d (mtu %d, window %d segments)%n", qpA.qpn(), qpB.qpn(),
                    qpA.config().mtu(), SoftConfig.defaults().sendWindow());

            int n = (int) size;
            MemorySegment source = arena.allocate(n, 64);
            fill(source, 0x5EED);
            MemoryRegion src = pdA.register(source, AccessFlags.ALL);
            MemoryRegion readBack = pdA.register(arena.allocate(n, 64), AccessFlags.ALL);
            MemoryRegion target = pdB.register(arena.allocate(n, 64), AccessFlags.ALL);
            MemoryRegion inbox = pdB.register(arena.allocate(n, 64), AccessFlags.ALL);
            RemoteRegion remote = RemoteRegion.of(target);
            WorkRequest wr = new WorkRequest();

            long t0 = System.nanoTime();
            qpA.postSend(wr.clear().wrId(1).opcode(Opcode.RDMA_WRITE).sge(src, 0, n).remote(remote, 0));
            await(cqA, 1, "RDMA write");
            report(out, "RDMA_WRITE", n, t0, target.segment().mismatch(source) == -1);

            t0 = System.nanoTime();
            qpA.postSend(wr.clear().wrId(2).opcode(Opcode.RDMA_READ).sge(readBack, 0, n).remote(remote, 0));
            await(cqA, 2, "RDMA read");
            report(out, "RDMA_READ", n, t0, readBack.segment().mismatch(source) == -1);

            qpB.postRecv(new WorkRequest().wrId(10).sge(inbox, 0, n));
            t0 = System.nanoTime();
            qpA.postSend(wr.clear().wrId(3).opcode(Opcode.SEND_WITH_IMM).immediate(0xCAFE).sge(src, 0, n));
            await(cqA, 3, "send");
            WorkCompletion recv = await(cqB, 10, "receive");
            report(out, "SEND_WITH_IMM", n, t0, inbox.segment().mismatch(source) == -1
                    && recv.byteLength() == n && recv.immediate() == 0xCAFE);

            qpB.postRecv(new WorkRequest().wrId(11));
            t0 = System.nanoTime();
            qpA.postSend(wr.clear().wrId(4).opcode(Opcode.RDMA_WRITE_WITH_IMM).immediate(7).remote(remote, 0));
            await(cqA, 4, "write with immediate");
            WorkCompletion imm = await(cqB, 11, "immediate");
            out.printf("  %-20s immediate %d delivered to the peer's receive queue in %.0f us%n",
                    "RDMA_WRITE_WITH_IMM", imm.immediate(), (System.nanoTime() - t0) / 1e3);

            Counters c = a.counters();
            out.printf("alice sent %d packets (%d retransmitted, %d timeouts); bob received %d, %d duplicates, %d out of order%n",
                    c.get(Counter.PACKETS_SENT), a.counters().get(Counter.RETRANSMITS), a.counters().get(Counter.TIMEOUTS),
                    b.counters().get(Counter.PACKETS_RECEIVED), b.counters().get(Counter.DUPLICATES),
                    SoftCounters.of(b).get(SoftCounter.OUT_OF_ORDER));
            return 0;
        }
    }

    private static void fill(MemorySegment segment, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long words = segment.byteSize() / 8;
        for (long i = 0; i < words; i++) {
            segment.set(ValueLayout.JAVA_LONG_UNALIGNED, i * 8, random.nextLong());
        }
        for (long i = words * 8; i < segment.byteSize(); i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
    }

    private static WorkCompletion await(CompletionQueue cq, long wrId, String what) throws InterruptedException {
        WorkCompletion[] wc = WorkCompletion.array(1);
        if (cq.await(wc, WAIT_SECONDS, TimeUnit.SECONDS) == 0) {
            throw new IllegalStateException(what + " did not complete within " + WAIT_SECONDS + " s");
        }
        if (wc[0].status() != WcStatus.SUCCESS || wc[0].wrId() != wrId) {
            throw new IllegalStateException(what + " failed: " + wc[0]);
        }
        return wc[0];
    }

    private static void report(PrintStream out, String op, long bytes, long t0, boolean verified) {
        double micros = (System.nanoTime() - t0) / 1e3;
        out.printf("  %-20s %10s in %9.0f us = %8.1f MB/s  %s%n", op, Sizes.format(bytes), micros, bytes / micros,
                verified ? "verified" : "MISMATCH");
        if (!verified) {
            throw new IllegalStateException(op + ": data did not arrive intact");
        }
    }
}
