package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RDMA WRITE and READ into {@link SharedMemory} the peer exports are copied by the requester itself
 * ({@link DirectCopy}): byte-exact, completed at once, nothing handed to the peer's responder (its
 * packets-received counter stays 0), and the peer's export withdrawn at deregistration. Whatever
 * the requester's checks refuse goes through the ring, where the responder answers as before
 * (REM_ACCESS_ERR), and a request behind an earlier one still outstanding waits for it (post order).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DirectCopyTest {
    private Arena arena;
    private ShmDevice a;
    private ShmDevice b;
    private ProtectionDomain pdA;
    private ProtectionDomain pdB;
    private CompletionQueue scq;
    private CompletionQueue rcqB;
    private QueuePair qa;
    private QueuePair qb;
    private MemoryRegion src;
    private final WorkRequest wr = new WorkRequest();
    private final WorkCompletion[] wcs = WorkCompletion.array(4);

    @BeforeEach
    void open() {
        arena = Arena.ofShared();
        a = ShmDevice.open(ShmConfig.builder().name("direct-a").build());
        b = ShmDevice.open(ShmConfig.builder().name("direct-b").build());
        pdA = a.allocateProtectionDomain();
        pdB = b.allocateProtectionDomain();
        src = pdA.register(SharedMemory.allocate(1 << 20, arena), AccessFlags.ALL);
        scq = a.createCompletionQueue(64);
        rcqB = b.createCompletionQueue(64);
        qa = a.createQueuePair(pdA, QpConfig.defaults(), scq, a.createCompletionQueue(64));
        qb = b.createQueuePair(pdB, QpConfig.defaults(), b.createCompletionQueue(64), rcqB);
        qa.connect(qb.localInfo());
        qb.connect(qa.localInfo());
    }

    @AfterEach
    void close() {
        qa.close();
        qb.close();
        a.close();
        b.close();
        arena.close();
    }

    private WorkCompletion run(Opcode op, long wrId, long localOffset, long length, RemoteRegion remote, long offset)
            throws InterruptedException {
        qa.postSend(wr.clear().wrId(wrId).opcode(op).remote(remote, offset).sge(src, localOffset, length));
        assertThat(scq.await(wcs, 10, TimeUnit.SECONDS)).as("completion of %d", wrId).isEqualTo(1);
        assertThat(wcs[0].wrId()).isEqualTo(wrId);
        return wcs[0];
    }

    /** A 64-byte RDMA WRITE to {@code target} completes with REM_ACCESS_ERR, and {@code memory} stays zero. */
    private void assertWriteRefused(RemoteRegion target, MemorySegment memory) throws InterruptedException {
        assertThat(run(Opcode.RDMA_WRITE, 1, 0, 64, target, 0).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(memory.get(ValueLayout.JAVA_LONG, 0)).isZero();
    }

    /** The first request attaches the peer (the agent does); from then on the requester can copy itself. */
    private void attach(MemoryRegion dst) throws InterruptedException {
        assertThat(run(Opcode.RDMA_WRITE, 0, 0, 8, RemoteRegion.of(dst), 0).status()).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void writesAndReadsAreCopiedByTheRequesterByteExact() throws Exception {
        MemoryRegion dst = pdB.register(SharedMemory.allocate(1 << 20, arena), AccessFlags.ALL);
        attach(dst);
        long receivedBefore = b.counters().get(Counter.PACKETS_RECEIVED);
        MemorySegment s = src.segment();
        for (int i = 0; i < 65536; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
        }
        WorkCompletion w = run(Opcode.RDMA_WRITE, 1, 0, 65536, RemoteRegion.of(dst), 4096);
        assertThat(w.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(dst.segment().asSlice(4096, 65536).mismatch(s.asSlice(0, 65536))).isEqualTo(-1);

        dst.segment().asSlice(200_000, 1000).fill((byte) 0x5A);
        WorkCompletion r = run(Opcode.RDMA_READ, 2, 500_000, 1000, RemoteRegion.of(dst), 200_000);
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.byteLength()).isEqualTo(1000);
        assertThat(s.asSlice(500_000, 1000).mismatch(dst.segment().asSlice(200_000, 1000))).isEqualTo(-1);

        assertThat(b.counters().get(Counter.PACKETS_RECEIVED) - receivedBefore)
                .as("requests the peer's responder executed").isZero();
        assertThat(a.counters().get(Counter.BYTES_SENT)).as("bytes sent").isGreaterThanOrEqualTo(65536 + 1000);
    }

    @Test
    void whatTheChecksRefuseTheResponderNaksAsBefore() throws Exception {
        MemoryRegion readOnly = pdB.register(SharedMemory.allocate(8192, arena), AccessFlags.LOCAL_WRITE
                | AccessFlags.REMOTE_READ);
        MemoryRegion dst = pdB.register(SharedMemory.allocate(8192, arena), AccessFlags.ALL);
        attach(dst);
        assertWriteRefused(RemoteRegion.of(readOnly), readOnly.segment()); // no REMOTE_WRITE
    }

    @Test
    void outOfBoundsIsRefused() throws Exception {
        MemoryRegion dst = pdB.register(SharedMemory.allocate(8192, arena), AccessFlags.ALL);
        attach(dst);
        src.segment().asSlice(0, 4096).fill((byte) 0x5A);
        assertThat(run(Opcode.RDMA_WRITE, 1, 0, 4096, RemoteRegion.of(dst), 8192 - 4095).status())
                .isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(dst.segment().mismatch(MemorySegment.ofArray(new byte[8192]))).as("the target untouched")
                .isEqualTo(-1);
    }

    @Test
    void anExportNamingBytesBeyondItsFileGoesThroughTheRing() throws Exception {
        MemoryRegion dst = pdB.register(SharedMemory.allocate(8192, arena), AccessFlags.ALL);
        attach(dst);
        MemorySegment bFile = peerFileOf(b);
        long e = Layout.DEV_EXPORTS + ExportTable.slot(dst.remoteKey()) * Layout.X_SIZE;
        bFile.set(ValueLayout.JAVA_LONG, e + Layout.X_OFFSET, 1L << 40); // the peer's word: past any file
        long receivedBefore = b.counters().get(Counter.PACKETS_RECEIVED);
        src.segment().asSlice(0, 4096).fill((byte) 0x3C);
        assertThat(run(Opcode.RDMA_WRITE, 1, 0, 4096, RemoteRegion.of(dst), 100).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(dst.segment().asSlice(100, 4096).mismatch(src.segment().asSlice(0, 4096))).isEqualTo(-1);
        assertThat(b.counters().get(Counter.PACKETS_RECEIVED) - receivedBefore)
                .as("requests the peer's responder executed (the requester refused to copy)").isEqualTo(1);
    }

    @Test
    void theBoundsCheckIsUnsignedAndWithoutOverflow() {
        long base = 0x7f12_3456_0000L;
        assertThat(DirectCopy.inBounds(base, 8192, base, 8192)).as("the whole region").isTrue();
        assertThat(DirectCopy.inBounds(base + 8192 - 64, 64, base, 8192)).as("its last 64 bytes").isTrue();
        assertThat(DirectCopy.inBounds(base + 8192 - 63, 64, base, 8192)).as("one byte past the end").isFalse();
        assertThat(DirectCopy.inBounds(base - 1, 64, base, 8192)).as("one byte before").isFalse();
        assertThat(DirectCopy.inBounds(base, 8193, base, 8192)).as("longer than the region").isFalse();
        assertThat(DirectCopy.inBounds(base + (1L << 63), 64, base, 8192)).as("base + 2^63").isFalse();
        assertThat(DirectCopy.inBounds(base + Long.MAX_VALUE, 64, base, 8192)).as("base + 2^63 - 1").isFalse();
        assertThat(DirectCopy.inBounds(-64, 64, base, 8192)).as("the top of the address space").isFalse();
    }

    @Test
    void aRegionOfAnotherDomainIsRefused() throws Exception {
        MemoryRegion dst = pdB.register(SharedMemory.allocate(8192, arena), AccessFlags.ALL);
        MemoryRegion other = b.allocateProtectionDomain().register(SharedMemory.allocate(8192, arena), AccessFlags.ALL);
        attach(dst);
        assertWriteRefused(RemoteRegion.of(other), other.segment());
    }

    @Test
    void aDeregisteredRegionIsWithdrawnFromTheExportTable() throws Exception {
        MemoryRegion dst = pdB.register(SharedMemory.allocate(8192, arena), AccessFlags.ALL);
        MemoryRegion gone = pdB.register(SharedMemory.allocate(8192, arena), AccessFlags.ALL);
        attach(dst);
        RemoteRegion stale = RemoteRegion.of(gone);
        MemorySegment memory = gone.segment();
        gone.close();
        assertWriteRefused(stale, memory);
        long e = Layout.DEV_EXPORTS + ExportTable.slot(stale.remoteKey()) * Layout.X_SIZE;
        MemorySegment file = peerFileOf(b);
        assertThat(file.get(ValueLayout.JAVA_LONG, e + Layout.X_KEY)).as("exported key after close").isZero();
        assertThat(file.get(ValueLayout.JAVA_INT, e + Layout.X_USES)).as("copies running").isZero();
    }

    @Test
    void aWriteBehindAnOutstandingSendWaitsForIt() throws Exception {
        MemoryRegion dst = pdB.register(SharedMemory.allocate(8192, arena), AccessFlags.ALL);
        attach(dst);
        src.segment().asSlice(0, 64).fill((byte) 1);
        // no receive posted: the SEND meets RNR and stays outstanding; the WRITE behind it must not overtake it
        qa.postSend(wr.clear().wrId(1).opcode(Opcode.SEND).sge(src, 0, 64));
        qa.postSend(wr.clear().wrId(2).opcode(Opcode.RDMA_WRITE).remote(RemoteRegion.of(dst), 1024).sge(src, 0, 64));
        Thread.sleep(50);
        assertThat(dst.segment().get(ValueLayout.JAVA_LONG, 1024)).as("the write before the send").isZero();
        assertThat(scq.poll(wcs)).isZero();
        qb.postRecv(wr.clear().wrId(9).sge(dst, 4096, 64));
        int n = 0;
        long[] ids = new long[2];
        while (n < 2) {
            int k = scq.await(wcs, 10, TimeUnit.SECONDS);
            assertThat(k).isPositive();
            for (int i = 0; i < k; i++) {
                assertThat(wcs[i].status()).isEqualTo(WcStatus.SUCCESS);
                ids[n++] = wcs[i].wrId();
            }
        }
        assertThat(ids).containsExactly(1, 2);
        assertThat(dst.segment().get(ValueLayout.JAVA_LONG, 1024)).isEqualTo(0x0101_0101_0101_0101L);
        assertThat(rcqB.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
    }

    @Test
    void aRegionDeregisteredAfterItsDeviceClosedWasWithdrawnByTheClose() throws Exception {
        MemoryRegion dst = pdB.register(SharedMemory.allocate(8192, arena), AccessFlags.ALL);
        attach(dst);
        ShmAddress addr = ShmAddress.parse(b.address());
        // A's mapping of B's device file outlives B's close
        MemorySegment bFile = a.mappings().map(addr.pid(), addr.fd(), addr.inode());
        long e = Layout.DEV_EXPORTS + ExportTable.slot(dst.remoteKey()) * Layout.X_SIZE;
        long seq = Layout.getVolatile(bFile, e + Layout.X_SEQ);
        qb.close();
        b.close(); // withdraws every export, waits for peers' copies, unmaps the device file and its export table
        assertThat(bFile.get(ValueLayout.JAVA_LONG, e + Layout.X_KEY)).as("exported key after the device closed")
                .isZero();
        assertThat(Layout.getVolatile(bFile, e + Layout.X_SEQ)).as("sequence after the device closed")
                .isEqualTo(seq + 2);
        long start = System.nanoTime();
        dst.close(); // nothing left to withdraw: the table went with the file
        assertThat(dst.isRegistered()).isFalse();
        assertThat(System.nanoTime() - start).as("no wait for copies of a closed device").isLessThan(1_000_000_000L);
    }

    @Test
    void closingTheTargetDeviceWaitsForACopyInFlight() throws Exception {
        long size = 256L << 20; // a copy of tens of milliseconds (fresh pages): the device closes meanwhile
        MemoryRegion big = pdA.register(SharedMemory.allocate(size, arena), AccessFlags.ALL);
        MemoryRegion dst = pdB.register(SharedMemory.allocate(size, arena), AccessFlags.ALL);
        attach(dst);
        big.segment().fill((byte) 0x11);
        // B's device file as A's requester sees it (A's mapping outlives B's close)
        ShmAddress addr = ShmAddress.parse(b.address());
        MemorySegment bFile = a.mappings().map(addr.pid(), addr.fd(), addr.inode());
        long uses = Layout.DEV_EXPORTS + ExportTable.slot(dst.remoteKey()) * Layout.X_SIZE + Layout.X_USES;
        RemoteRegion remote = RemoteRegion.of(dst);
        Thread poster = null;
        boolean inFlight = false;
        for (int attempt = 0; attempt < 20 && !inFlight; attempt++) {
            long wrId = 100 + attempt;
            WorkRequest write = new WorkRequest().wrId(wrId).opcode(Opcode.RDMA_WRITE).remote(remote, 0);
            for (int i = 0; i < 16; i++) { // 16 copies: between two, closing B's arena finds the poster at a safepoint
                write.sge(big, i * (size / 16), size / 16);
            }
            poster = Thread.ofPlatform().start(() -> qa.postSend(write));
            while (poster.isAlive() && !inFlight) {
                inFlight = Layout.getIntVolatile(bFile, uses) != 0;
            }
            if (!inFlight) { // the copy ended before this thread saw it: try again
                poster.join();
                assertThat(scq.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
                assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
            }
        }
        assertThat(inFlight).as("a copy seen in flight").isTrue();
        qb.close();
        b.close();
        dst.close();
        int running = Layout.getIntVolatile(bFile, uses);
        dst.segment().fill((byte) 0x77); // B reuses the buffer
        poster.join();
        assertThat(running).as("copies still running into B's region after its device closed").isZero();
        assertThat(scq.await(wcs, 10, TimeUnit.SECONDS)).as("the WRITE completes").isEqualTo(1);
        MemorySegment d = dst.segment();
        for (long i = 0; i < size; i += 8) {
            if (d.get(ValueLayout.JAVA_LONG, i) != 0x7777_7777_7777_7777L) {
                throw new AssertionError("byte " + i + " of B's buffer written after its deregistration returned");
            }
        }
    }

    @Test
    void aWriteFromMemoryFreedUnderItsRegistrationFailsLocally() throws Exception {
        MemoryRegion dst = pdB.register(SharedMemory.allocate(8192, arena), AccessFlags.ALL);
        attach(dst);
        Arena freed = Arena.ofShared();
        MemoryRegion local = pdA.register(SharedMemory.allocate(8192, freed), AccessFlags.ALL);
        freed.close(); // the memory goes, the registration stays
        RemoteRegion remote = RemoteRegion.of(dst);
        qa.postSend(wr.clear().wrId(1).opcode(Opcode.RDMA_WRITE).remote(remote, 0).sge(local, 0, 64));
        qa.postSend(wr.clear().wrId(2).opcode(Opcode.RDMA_WRITE).remote(remote, 64).sge(src, 0, 64));
        WcStatus[] status = new WcStatus[3];
        for (int n = 0; n < 2; ) {
            int k = scq.await(wcs, 10, TimeUnit.SECONDS);
            assertThat(k).as("completions of the request from freed memory and the one behind it").isPositive();
            for (int i = 0; i < k; i++, n++) {
                status[(int) wcs[i].wrId()] = wcs[i].status();
            }
        }
        assertThat(status[1]).as("the request from freed memory").isEqualTo(WcStatus.LOC_PROT_ERR);
        assertThat(status[2]).as("the request behind it").isEqualTo(WcStatus.WR_FLUSH_ERR);
        long start = System.nanoTime();
        local.close();
        assertThat(System.nanoTime() - start).as("deregistration: no use left behind").isLessThan(1_000_000_000L);
        assertThat(a.counters().get(Counter.AGENT_ERRORS)).as("agent errors").isZero();
        assertThat(dst.segment().get(ValueLayout.JAVA_LONG, 0)).as("the target").isZero();
    }

    private static MemorySegment peerFileOf(ShmDevice d) {
        ShmAddress addr = ShmAddress.parse(d.address());
        return d.mappings().map(addr.pid(), addr.fd(), addr.inode());
    }
}
