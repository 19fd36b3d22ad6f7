package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.*;
import io.slime4j.wire.inproc.FaultConfig;
import io.slime4j.wire.inproc.InprocWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class SoftDeviceSmokeTest {

    static SoftDevice da, db;
    static WorkCompletion awaitOne(CompletionQueue cq) throws InterruptedException {
        WorkCompletion[] wc = WorkCompletion.array(1);
        int n = cq.await(wc, 10, TimeUnit.SECONDS);
        if (n == 0) System.out.println("STALL a=" + da.counters() + "\n b=" + db.counters() + "\n" + da.debugState() + "\n" + db.debugState());
        if (n == 1 && !wc[0].isSuccess()) System.out.println("FAILED " + wc[0] + "\n a=" + da.counters() + "\n b=" + db.counters() + "\n" + da.debugState() + "\n" + db.debugState());
        assertThat(n).as("a completion within 10 s").isEqualTo(1);
        return wc[0];
    }

    void run(FaultConfig faults, int size) throws Exception {
        try (InprocWire wire = new InprocWire(faults);
             SoftDevice a = SoftDevice.open(wire, "a", SoftConfig.defaults());
             SoftDevice b = SoftDevice.open(wire, "b", SoftConfig.defaults());
             Arena arena = Arena.ofShared()) {
            da = a; db = b;
            ProtectionDomain pa = a.allocateProtectionDomain();
            ProtectionDomain pb = b.allocateProtectionDomain();
            CompletionQueue ca = a.createCompletionQueue(1024);
            CompletionQueue cb = b.createCompletionQueue(1024);
            QpConfig cfg = QpConfig.builder().ackTimeout(Duration.ofMillis(10)).mtu(1024).build();
            QueuePair qa = a.createQueuePair(pa, cfg, ca, ca);
            QueuePair qb = b.createQueuePair(pb, cfg, cb, cb);
            qa.connect(qb.localInfo());
            qb.connect(qa.localInfo());
            MemorySegment src = arena.allocate(size);
            MemorySegment dst = arena.allocate(size);
            for (int i = 0; i < size; i++) src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            MemoryRegion ms = pa.register(src, AccessFlags.ALL);
            MemoryRegion md = pb.register(dst, AccessFlags.ALL);
            WorkRequest wr = new WorkRequest();
            long t0 = System.nanoTime();
            qa.postSend(wr.clear().wrId(1).opcode(Opcode.RDMA_WRITE).sge(ms, 0, size).remote(md.address(), md.remoteKey()));
            WorkCompletion wc = awaitOne(ca);
            long t1 = System.nanoTime();
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(dst.mismatch(src)).isEqualTo(-1);
            // read back into a fresh buffer
            MemorySegment back = arena.allocate(size);
            MemoryRegion mback = pa.register(back, AccessFlags.ALL);
            qa.postSend(wr.clear().wrId(2).opcode(Opcode.RDMA_READ).sge(mback, 0, size).remote(md.address(), md.remoteKey()));
            wc = awaitOne(ca);
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(back.mismatch(src)).isEqualTo(-1);
            // send/recv
            MemorySegment rbuf = arena.allocate(size);
            MemoryRegion mr = pb.register(rbuf, AccessFlags.ALL);
            qb.postRecv(new WorkRequest().wrId(77).sge(mr, 0, size));
            qa.postSend(wr.clear().wrId(3).opcode(Opcode.SEND_WITH_IMM).immediate(42).sge(ms, 0, size));
            wc = awaitOne(ca);
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            WorkCompletion rc = awaitOne(cb);
            assertThat(rc.wrId()).isEqualTo(77);
            assertThat(rc.immediate()).isEqualTo(42);
            assertThat(rc.byteLength()).isEqualTo(size);
            assertThat(rbuf.mismatch(src)).isEqualTo(-1);
            System.out.printf("size %d faults %s: write %.1f MB/s; a=%s%n b=%s%n", size, faults,
                    size / ((t1 - t0) / 1e3), a.counters(), b.counters());
        }
    }

    @Test
    void movesBytesWithoutFaults() throws Exception {
        run(FaultConfig.NONE, 8 << 20);
    }

    @Test
    void movesBytesUnderFaults() throws Exception {
        run(FaultConfig.builder().seed(1).dropRate(0.1).duplicateRate(0.1).reorderRate(0.1).build(), 4 << 20);
    }
}
