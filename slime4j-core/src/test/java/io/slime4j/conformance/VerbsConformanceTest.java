package io.slime4j.conformance;

import io.slime4j.soft.SoftCounter;
import static io.slime4j.conformance.Requests.compareSwap;
import static io.slime4j.conformance.Requests.fetchAdd;
import static io.slime4j.conformance.Requests.read;
import static io.slime4j.conformance.Requests.recv;
import static io.slime4j.conformance.Requests.send;
import static io.slime4j.conformance.Requests.sendWithImm;
import static io.slime4j.conformance.Requests.write;
import static io.slime4j.conformance.Requests.writeWithImm;
import static io.slime4j.verbs.WcStatus.LOC_LEN_ERR;
import static io.slime4j.verbs.WcStatus.LOC_PROT_ERR;
import static io.slime4j.verbs.WcStatus.REM_ACCESS_ERR;
import static io.slime4j.verbs.WcStatus.REM_INV_REQ_ERR;
import static io.slime4j.verbs.WcStatus.RETRY_EXC_ERR;
import static io.slime4j.verbs.WcStatus.RNR_RETRY_EXC_ERR;
import static io.slime4j.verbs.WcStatus.SUCCESS;
import static io.slime4j.verbs.WcStatus.WR_FLUSH_ERR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.slime4j.conformance.QpPair.Side;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.CompletionQueueOverflowException;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.QueueFullException;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.VerbsException;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongUnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The verbs contract, the same for every implementation and wire (the "Verbs semantics that must
 * hold" of the architecture guide). A subclass per wire supplies devices that can reach each other;
 * a subclass with injected faults (loss, duplication, reordering) runs the same tests and proves the
 * reliability protocol.
 *
 * <p>Every test opens its own devices (through {@link #openDevice}) and closes them afterwards.
 * Buffers are off-heap memory of a shared arena. Each test fails, rather than hangs, when the
 * behaviour it names breaks: waits are bounded ({@link Completions#PROGRESS_TIMEOUT} without
 * progress) and every test has a {@link Timeout}.
 *
 * <p>Sections follow the contract: ordering and segmentation; receives; RNR; retry exhaustion;
 * access errors; flushing; selective signaling; reads; message sizes; queue limits; exactly-once
 * execution and sequence wrap; read/atomic limits, fences and atomics; retry count semantics; bulk
 * transfer and counters; memory registration.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class VerbsConformanceTest {
    protected static final int KIB = 1 << 10;
    protected static final int MIB = 1 << 20;
    /** Capacity of the suite's completion queues. */
    protected static final int CQ_CAPACITY = 4096;

    private static final AtomicInteger DEVICE_NUMBER = new AtomicInteger();

    private TestResources resources;

    // ------------------------------------------------------------------------------------ hooks

    /**
     * Opens a device. Every device opened by one test instance must be able to reach every other
     * one. The suite closes it after the test.
     */
    protected abstract VerbsDevice openDevice(String name);

    /** The address of a device where nothing answers (packets sent there vanish). */
    protected abstract String unreachableAddress();

    /**
     * Queue pair attributes every test starts from (tests change only what they are about).
     * Subclasses with injected faults may lengthen the timeouts.
     */
    protected QpConfig.Builder qpConfig() {
        return QpConfig.builder()
                .ackTimeout(Duration.ofMillis(20))
                .retryCount(7)
                .rnrTimer(Duration.ofMillis(1));
    }

    /**
     * Whether the devices' wire loses, duplicates or reorders packets. When true, tests that would
     * assert "no retransmission" skip that check, and the bulk test asserts that retransmissions and
     * duplicates did happen.
     */
    protected boolean faultsInjected() {
        return false;
    }

    // ----------------------------------------------------------------------------------- fixture

    @BeforeEach
    public final void openTestResources() {
        resources = new TestResources();
    }

    @AfterEach
    @Timeout(30) // a class-level @Timeout does not cover lifecycle methods; closing must not hang either
    public final void closeTestResources() {
        resources.close();
    }

    /** Opens a device that is closed after the test. */
    protected final VerbsDevice device() {
        return resources.track(openDevice("conformance-" + DEVICE_NUMBER.incrementAndGet()));
    }

    /** A protection domain of {@code device}, closed after the test. */
    protected final ProtectionDomain domain(VerbsDevice device) {
        return resources.track(device, device.allocateProtectionDomain());
    }

    /** Zeroed memory of a shared arena (reachable by every thread), freed after the test. */
    protected final MemorySegment allocate(long size) {
        return resources.allocate(size);
    }

    /** Closes something after the test, before the devices opened earlier. */
    protected final <T extends AutoCloseable> T closeAfterTest(T resource) {
        return resources.track(resource);
    }

    final Side side(VerbsDevice device, ProtectionDomain pd, QpConfig config) {
        return new Side(resources, device, pd, config, CQ_CAPACITY, CQ_CAPACITY);
    }

    /** A queue pair on a new device of its own. */
    final Side side(QpConfig config) {
        VerbsDevice device = device();
        return side(device, domain(device), config);
    }

    /** Two connected queue pairs on two new devices, with the suite's defaults. */
    final QpPair pair() {
        return pair(qpConfig().build());
    }

    /** Two connected queue pairs on two new devices. */
    final QpPair pair(QpConfig config) {
        return QpPair.connect(side(config), side(config));
    }

    /** A queue pair connected to {@link #unreachableAddress()}, where nothing answers. */
    private Side silentPeerSide(QpConfig config) {
        Side s = side(config);
        s.qp.connect(new QpInfo(unreachableAddress(), 1, 0, 0));
        return s;
    }

    // ------------------------------------------------------------- 1. ordering and segmentation

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

    // ------------------------------------------------------------------------------ 2. receives

    @Test
    @Timeout(30)
    public void sendsAndWritesWithImmediateConsumeReceivesInPostOrder() {
        QpPair p = pair();
        long slot = 8 * KIB;
        long seed = 201;
        int ops = 6;
        MemoryRegion src = p.a.region(ops * slot);
        MemoryRegion dst = p.b.region(ops * slot);
        MemoryRegion rcv = p.b.region((ops + 1) * slot);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(dst.segment(), seed);
        Patterns.fillComplement(rcv.segment(), seed);
        RemoteRegion remote = RemoteRegion.of(dst);

        // Op i uses offset i * slot in every buffer. Receive j covers the slot of the j-th op that
        // consumes a receive (ops 0, 2, 3, 4, 5; op 1 is a plain RDMA_WRITE); one spare receive stays.
        int[] consumers = {0, 2, 3, 4, 5};
        for (int j = 0; j < consumers.length; j++) {
            p.b.postRecv(recv(100 + j, rcv, consumers[j] * slot, slot));
        }
        p.b.postRecv(recv(199, rcv, ops * slot, slot));

        p.a.post(send(0, src, 0, 100),
                write(1, src, slot, 300, remote, slot),
                writeWithImm(2, src, 2 * slot, 200, remote, 2 * slot, 0x1234_5678),
                sendWithImm(3, src, 3 * slot, 300, 0xFFFF_FFFE),
                writeWithImm(4, src, 4 * slot, 0, remote, 4 * slot, 7),
                send(5, src, 5 * slot, slot)); // fills its receive exactly

        List<WorkCompletion> sent = p.a.sendCompletions(ops);
        WcOpcode[] sentOpcodes = {WcOpcode.SEND, WcOpcode.RDMA_WRITE, WcOpcode.RDMA_WRITE, WcOpcode.SEND,
                WcOpcode.RDMA_WRITE, WcOpcode.SEND};
        for (int i = 0; i < ops; i++) {
            assertCompletion(sent.get(i), i, SUCCESS, sentOpcodes[i]);
        }

        List<WorkCompletion> received = p.b.recvCompletions(consumers.length);
        assertReceive(received.get(0), 100, WcOpcode.RECV, 100, null, p.b);
        assertReceive(received.get(1), 101, WcOpcode.RECV_RDMA_WITH_IMM, 200, 0x1234_5678, p.b);
        assertReceive(received.get(2), 102, WcOpcode.RECV, 300, 0xFFFF_FFFE, p.b);
        assertReceive(received.get(3), 103, WcOpcode.RECV_RDMA_WITH_IMM, 0, 7, p.b);
        assertReceive(received.get(4), 104, WcOpcode.RECV, slot, null, p.b);
        Completions.assertNone(p.b.recvCq, Duration.ofMillis(50), "the spare receive (nothing consumes it)");

        MemorySegment r = rcv.segment();
        MemorySegment d = dst.segment();
        Patterns.assertPattern(r, 0, 100, seed, "SEND data in its receive buffer");
        Patterns.assertComplement(r, 100, slot - 100, seed, "receive buffer past the SEND's 100 bytes");
        Patterns.assertPattern(d, slot, 300, seed, "RDMA_WRITE data");
        Patterns.assertPattern(d, 2 * slot, 200, seed, "RDMA_WRITE_WITH_IMM data at the remote address");
        Patterns.assertComplement(r, 2 * slot, slot, seed,
                "receive buffer consumed by RDMA_WRITE_WITH_IMM (the data goes to the remote address, not here)");
        Patterns.assertPattern(r, 3 * slot, 300, seed, "SEND_WITH_IMM data in its receive buffer");
        Patterns.assertComplement(d, 4 * slot, slot, seed, "target of the zero-length RDMA_WRITE_WITH_IMM");
        Patterns.assertComplement(r, 4 * slot, slot, seed, "receive consumed by the zero-length RDMA_WRITE_WITH_IMM");
        Patterns.assertPattern(r, 5 * slot, slot, seed, "SEND filling its receive exactly");
        Patterns.assertComplement(r, ops * slot, slot, seed, "the spare receive buffer");
        for (int i : new int[] {0, 3, 5}) {
            Patterns.assertComplement(d, i * slot, slot, seed, "remote memory at the offset of SEND " + i);
        }
    }

    // ----------------------------------------------------------------------------------- 3. RNR

    @Test
    @Timeout(30)
    public void aSendWithoutAPostedReceiveIsRetriedUntilAReceiveIsPosted() throws Exception {
        QpPair p = pair(qpConfig().rnrRetry(QpConfig.RNR_RETRY_INFINITE).rnrTimer(Duration.ofMillis(1)).build());
        long seed = 301;
        MemoryRegion src = p.a.region(4 * KIB);
        MemoryRegion rcv = p.b.region(4 * KIB);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(rcv.segment(), seed);

        p.a.post(send(1, src, 0, 2 * KIB));
        // ~50 ms without a receive: dozens of RNR NAKs at a 1 ms RNR timer, and no completion at all.
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(50),
                "a SEND waiting for a receive (rnrRetry 7 = forever)");
        p.b.postRecv(recv(7, rcv, 0, 4 * KIB));

        assertCompletion(Completions.take(p.a.sendCq, "the SEND once a receive is posted"), 1, SUCCESS, WcOpcode.SEND);
        assertReceive(p.b.recvCompletion(), 7, WcOpcode.RECV, 2 * KIB, null, p.b);
        Patterns.assertPattern(rcv.segment(), 0, 2 * KIB, seed, "SEND data after RNR retries");
        assertThat(Math.max(p.a.qpCounter(SoftCounter.RNR_NAKS_RECEIVED), p.a.deviceCounter(SoftCounter.RNR_NAKS_RECEIVED)))
                .as("RNR NAKs received by the requester (queue pair or device)").isPositive();
        assertThat(Math.max(p.b.qpCounter(SoftCounter.RNR_NAKS_SENT), p.b.deviceCounter(SoftCounter.RNR_NAKS_SENT)))
                .as("RNR NAKs sent by the responder (queue pair or device)").isPositive();
    }

    @Test
    @Timeout(30)
    public void aSendThatNeverFindsAReceiveFailsWithRnrRetryExceeded() {
        QpPair p = pair(qpConfig().rnrRetry(2).rnrTimer(Duration.ofMillis(1)).build());
        MemoryRegion src = p.a.region(4 * KIB);

        p.a.post(send(9, src, 0, KIB), write(10, src, KIB, KIB, RemoteRegion.of(p.b.region(4 * KIB)), 0));

        List<WorkCompletion> wcs = p.a.sendCompletions(2);
        assertCompletion(wcs.get(0), 9, RNR_RETRY_EXC_ERR, WcOpcode.SEND);
        assertCompletion(wcs.get(1), 10, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE);
        assertThat(wcs.get(0).qpn()).as("qpn of %s", wcs.get(0)).isEqualTo(p.a.qp.qpn());
        Completions.awaitState(p.a.qp, QpState.ERR);
        assertThat(Math.max(p.a.qpCounter(SoftCounter.RNR_NAKS_RECEIVED), p.a.deviceCounter(SoftCounter.RNR_NAKS_RECEIVED)))
                .as("RNR NAKs received by the requester (queue pair or device)").isPositive();
    }

    // --------------------------------------------------------------------- 4. retry exhaustion

    @Test
    @Timeout(30)
    public void requestsToASilentPeerFailWithRetryExceededAfterTheRetryBudget() {
        int retryCount = 3;
        Side s = silentPeerSide(qpConfig().ackTimeout(Duration.ofMillis(5)).retryCount(retryCount).build());
        MemoryRegion buf = s.region(4 * KIB);
        RemoteRegion nowhere = new RemoteRegion(1L << 20, 1L << 20, 0x1234);

        long start = System.nanoTime();
        s.post(write(1, buf, 0, 64, nowhere, 0), send(2, buf, 64, 64), read(3, buf, 128, 64, nowhere, 128));
        List<WorkCompletion> wcs = s.sendCompletions(3);
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

        assertCompletion(wcs.get(0), 1, RETRY_EXC_ERR, WcOpcode.RDMA_WRITE);
        assertCompletion(wcs.get(1), 2, WR_FLUSH_ERR, WcOpcode.SEND);
        assertCompletion(wcs.get(2), 3, WR_FLUSH_ERR, WcOpcode.RDMA_READ);
        for (WorkCompletion wc : wcs) {
            assertThat(wc.qpn()).as("qpn of %s", wc).isEqualTo(s.qp.qpn());
        }
        // 5 + 10 + 20 + 40 ms of timeouts with backoff; seconds mean the budget is not applied.
        assertThat(elapsed).as("time until RETRY_EXC_ERR with ackTimeout 5 ms, retryCount 3")
                .isLessThan(Duration.ofSeconds(5));
        Completions.awaitState(s.qp, QpState.ERR);
        assertThat(s.qpCounter(SoftCounter.RETRANSMITS)).as("retransmissions before giving up")
                .isGreaterThanOrEqualTo(retryCount);
        assertThat(s.qpCounter(SoftCounter.TIMEOUTS)).as("retransmit timer expiries").isPositive();
        Completions.assertNone(s.sendCq, Duration.ofMillis(50), "completions after every request completed once");
    }

    @Test
    @Timeout(30)
    public void outstandingRequestsCompleteWhenThePeerDeviceClosesMidTransfer() {
        QpPair p = pair(qpConfig().retryCount(2).build());
        int first = 16;
        int later = 4;
        long size = 512 * KIB;
        MemoryRegion src = p.a.region(first * size);
        RemoteRegion remote = RemoteRegion.of(p.b.region(first * size));

        for (int i = 0; i < first; i++) {
            p.a.post(write(i, src, i * size, size, remote, i * size));
        }
        assertCompletion(Completions.take(p.a.sendCq, "the first write, before the peer closes"), 0, SUCCESS,
                WcOpcode.RDMA_WRITE);
        resources.closeDevice(p.b.device);
        for (int i = first; i < first + later; i++) {
            p.a.post(write(i, src, 0, 4 * KIB, remote, 0)); // certainly after the close
        }

        List<WorkCompletion> rest = p.a.sendCompletions(first + later - 1);
        int failed = -1;
        for (int k = 0; k < rest.size(); k++) {
            WorkCompletion wc = rest.get(k);
            assertThat(wc.wrId()).as("completion order: %s", rest).isEqualTo(k + 1);
            if (failed < 0 && wc.status() != SUCCESS) {
                failed = k;
                assertThat(wc.status()).as("the first request that failed: %s", wc).isEqualTo(RETRY_EXC_ERR);
            } else if (failed >= 0) {
                assertThat(wc.status()).as("a request after the failed one: %s", wc).isEqualTo(WR_FLUSH_ERR);
            }
        }
        assertThat(failed).as("some request must fail once the peer is gone: %s", rest).isNotNegative();
        Completions.awaitState(p.a.qp, QpState.ERR);
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(50), "completions after every request completed once");
    }

    // ------------------------------------------------------------------------ 5. access errors

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Opcode.class,
            names = {"RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ", "ATOMIC_FETCH_ADD", "ATOMIC_CMP_SWAP"})
    @Timeout(30)
    public void aBadRemoteKeyFailsWithRemoteAccessErrorAndLeavesTheTargetUntouched(Opcode opcode) {
        QpPair p = pair();
        Target t = new Target(p, AccessFlags.ALL, 501);
        if (opcode.consumesReceive()) {
            p.b.postRecv(recv(50, p.b.region(4 * KIB), 0, 4 * KIB));
        }

        WorkCompletion wc = p.a.run(Requests.remote(opcode, 1, t.local, 0, 4 * KIB, t.region.address(),
                ~t.region.remoteKey()));

        assertCompletion(wc, 1, REM_ACCESS_ERR, opcode.completionOpcode());
        t.assertUntouched("after " + opcode + " with a bad remote key");
        Completions.awaitState(p.a.qp, QpState.ERR);
    }

    @Test
    @Timeout(30)
    public void theKeyOfAnotherRegionDoesNotOpenThisOne() {
        QpPair p = pair();
        Target t = new Target(p, AccessFlags.ALL, 502);
        MemoryRegion other = p.b.region(64 * KIB);

        WorkCompletion wc = p.a.run(write(1, t.local, 0, 4 * KIB,
                new RemoteRegion(t.region.address(), t.region.length(), other.remoteKey()), 0));

        assertCompletion(wc, 1, REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        t.assertUntouched("after a write with the key of another region");
        Patterns.assertZero(other.segment(), 0, other.length(), "the region whose key was used");
    }

    /** Out-of-bounds remote addresses, relative to the target's base address, for write, read and atomics. */
    public static Stream<Arguments> outOfBoundsAccesses() {
        long size = Target.SIZE;
        List<Arguments> cases = new ArrayList<>();
        for (Opcode op : List.of(Opcode.RDMA_WRITE, Opcode.RDMA_READ, Opcode.ATOMIC_FETCH_ADD)) {
            long len = op.isAtomic() ? 8 : 16;
            if (!op.isAtomic()) {
                cases.add(arguments(op, named("straddling the end", (LongUnaryOperator) base -> base + size - 8), len));
            }
            cases.add(arguments(op, named("starting at the end", (LongUnaryOperator) base -> base + size), len));
            cases.add(arguments(op, named("before the start", (LongUnaryOperator) base -> base - 8), len));
            cases.add(arguments(op, named("2^40 beyond the start",
                    (LongUnaryOperator) base -> base + (1L << 40)), len));
            cases.add(arguments(op, named("address + length overflowing Long.MAX_VALUE",
                    (LongUnaryOperator) base -> Long.MAX_VALUE - 7), len));
            cases.add(arguments(op, named("address + length wrapping past 2^64",
                    (LongUnaryOperator) base -> -8L), len));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.slime4j.conformance.VerbsConformanceTest#outOfBoundsAccesses")
    @Timeout(30)
    public void anOutOfBoundsAccessFailsWithRemoteAccessErrorAndLeavesTheTargetUntouched(
            Opcode opcode, LongUnaryOperator address, long length) {
        QpPair p = pair();
        Target t = new Target(p, AccessFlags.ALL, 503);

        WorkCompletion wc = p.a.run(Requests.remote(opcode, 1, t.local, 0, length,
                address.applyAsLong(t.region.address()), t.region.remoteKey()));

        assertCompletion(wc, 1, REM_ACCESS_ERR, opcode.completionOpcode());
        t.assertUntouched("after an out-of-bounds " + opcode);
        Completions.awaitState(p.a.qp, QpState.ERR);
    }

    /** Each remote opcode against a region registered without the permission it needs. */
    public static Stream<Arguments> missingPermissions() {
        int noWrite = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
        int noRead = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC;
        int noAtomic = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
        return Stream.of(
                arguments(Opcode.RDMA_WRITE, named("without REMOTE_WRITE", noWrite)),
                arguments(Opcode.RDMA_WRITE_WITH_IMM, named("without REMOTE_WRITE", noWrite)),
                arguments(Opcode.RDMA_WRITE, named("with local read only", 0)),
                arguments(Opcode.RDMA_READ, named("without REMOTE_READ", noRead)),
                arguments(Opcode.ATOMIC_FETCH_ADD, named("without REMOTE_ATOMIC", noAtomic)),
                arguments(Opcode.ATOMIC_CMP_SWAP, named("without REMOTE_ATOMIC", noAtomic)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.slime4j.conformance.VerbsConformanceTest#missingPermissions")
    @Timeout(30)
    public void anAccessWithoutPermissionFailsWithRemoteAccessErrorAndLeavesTheTargetUntouched(
            Opcode opcode, int accessFlags) {
        QpPair p = pair();
        Target t = new Target(p, accessFlags, 504);
        if (opcode.consumesReceive()) {
            p.b.postRecv(recv(50, p.b.region(4 * KIB), 0, 4 * KIB));
        }

        WorkCompletion wc = p.a.run(Requests.remote(opcode, 1, t.local, 0, 4 * KIB, t.region.address(),
                t.region.remoteKey()));

        assertCompletion(wc, 1, REM_ACCESS_ERR, opcode.completionOpcode());
        t.assertUntouched("after " + opcode + " on a region registered " + AccessFlags.toString(accessFlags));
        Completions.awaitState(p.a.qp, QpState.ERR);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Opcode.class, names = {"RDMA_WRITE", "RDMA_READ", "ATOMIC_FETCH_ADD"})
    @Timeout(30)
    public void theKeyOfADeregisteredRegionIsRefusedAndTheMemoryUntouched(Opcode opcode) {
        QpPair p = pair();
        Target t = new Target(p, AccessFlags.ALL, 505);
        RemoteRegion stale = RemoteRegion.of(t.region);
        t.region.close();
        assertThat(t.region.isRegistered()).as("region after close()").isFalse();

        WorkCompletion wc = p.a.run(Requests.remote(opcode, 1, t.local, 0, 4 * KIB, stale.address(),
                stale.remoteKey()));

        assertCompletion(wc, 1, REM_ACCESS_ERR, opcode.completionOpcode());
        t.assertUntouched("deregistered memory after " + opcode);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Opcode.class, names = {"SEND", "RDMA_WRITE", "RDMA_READ", "ATOMIC_FETCH_ADD"})
    @Timeout(30)
    public void aBadLocalKeyFailsWithLocalProtectionError(Opcode opcode) {
        QpPair p = pair();
        Target t = new Target(p, AccessFlags.ALL, 506);
        MemoryRegion rcv = p.b.region(8 * KIB);
        p.b.postRecv(recv(50, rcv, 0, 8 * KIB));

        WorkRequest wr = Requests.remote(opcode, 1, t.local, 0, 4 * KIB, t.region.address(), t.region.remoteKey());
        wr.clearSge().sge(t.local.address(), opcode.isAtomic() ? 8 : 4 * KIB, ~t.local.localKey());
        WorkCompletion wc = p.a.run(wr);

        assertCompletion(wc, 1, LOC_PROT_ERR, opcode.completionOpcode());
        if (!opcode.isAtomic()) {
            // (An atomic's local buffer only receives the old value, so the check may come after it ran.)
            t.assertUntouched("remote memory after " + opcode + " with a bad local key");
        }
        Completions.awaitState(p.a.qp, QpState.ERR);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Opcode.class, names = {"SEND", "RDMA_WRITE", "RDMA_READ"})
    @Timeout(30)
    public void aScatterGatherEntryBeyondItsLocalRegionFailsWithLocalProtectionError(Opcode opcode) {
        QpPair p = pair();
        Target t = new Target(p, AccessFlags.ALL, 507);
        p.b.postRecv(recv(50, p.b.region(8 * KIB), 0, 8 * KIB));

        WorkRequest wr = Requests.remote(opcode, 1, t.local, 0, 16, t.region.address(), t.region.remoteKey());
        wr.clearSge().sge(t.local.address() + t.local.length() - 8, 16, t.local.localKey());
        WorkCompletion wc = p.a.run(wr);

        assertCompletion(wc, 1, LOC_PROT_ERR, opcode.completionOpcode());
        t.assertUntouched("remote memory after " + opcode + " with an SGE beyond its region");
        Completions.awaitState(p.a.qp, QpState.ERR);
    }

    @Test
    @Timeout(30)
    public void aReadIntoALocalRegionWithoutLocalWriteFailsAndLeavesItUntouched() {
        QpPair p = pair();
        long seed = 508;
        MemoryRegion remote = p.b.region(64 * KIB);
        MemoryRegion local = p.a.region(64 * KIB, AccessFlags.REMOTE_READ);
        Patterns.fill(remote.segment(), seed);
        Patterns.fillComplement(local.segment(), seed);

        WorkCompletion wc = p.a.run(read(1, local, 0, 8 * KIB, RemoteRegion.of(remote), 0));

        assertCompletion(wc, 1, LOC_PROT_ERR, WcOpcode.RDMA_READ);
        Patterns.assertComplement(local.segment(), 0, local.length(), seed, "local region without LOCAL_WRITE");
        Completions.awaitState(p.a.qp, QpState.ERR);
    }

    @Test
    @Timeout(30)
    public void aSendLargerThanTheReceiveFailsWithLocalLengthErrorAtTheReceiver() {
        QpPair p = pair();
        MemoryRegion src = p.a.region(4 * KIB);
        MemoryRegion rcv = p.b.region(4 * KIB);
        p.b.postRecv(recv(70, rcv, 0, 100));

        WorkCompletion wc = p.a.run(send(3, src, 0, 200));

        assertCompletion(wc, 3, REM_INV_REQ_ERR, WcOpcode.SEND);
        WorkCompletion r = p.b.recvCompletion();
        assertThat(r.wrId()).as("wrId of %s", r).isEqualTo(70);
        assertThat(r.status()).as("status of %s", r).isEqualTo(LOC_LEN_ERR);
        Completions.awaitState(p.a.qp, QpState.ERR);
    }

    // ----------------------------------------------------------------------------- 6. flushing

    @Test
    @Timeout(30)
    public void anErrorFlushesEveryOutstandingSendAndReceiveExactlyOnce() {
        QpPair p = pair();
        MemoryRegion src = p.a.region(64 * KIB);
        MemoryRegion aRcv = p.a.region(16 * KIB);
        MemoryRegion dst = p.b.region(64 * KIB);
        MemoryRegion bRcv = p.b.region(64 * KIB);
        RemoteRegion remote = RemoteRegion.of(dst);
        RemoteRegion badKey = new RemoteRegion(dst.address(), dst.length(), ~dst.remoteKey());
        for (int j = 0; j < 3; j++) {
            p.a.postRecv(recv(500 + j, aRcv, j * 4 * KIB, 4 * KIB));
        }
        for (int j = 0; j < 8; j++) {
            p.b.postRecv(recv(600 + j, bRcv, j * 8 * KIB, 8 * KIB));
        }

        List<WorkRequest> requests = List.of(
                write(0, src, 0, 4 * KIB, badKey, 0),
                send(1, src, 0, 4 * KIB),
                write(2, src, 4 * KIB, 4 * KIB, remote, 4 * KIB),
                read(3, src, 8 * KIB, 4 * KIB, remote, 8 * KIB),
                sendWithImm(4, src, 12 * KIB, 100, 44),
                writeWithImm(5, src, 16 * KIB, 100, remote, 16 * KIB, 55),
                fetchAdd(6, src, 20 * KIB, remote, 20 * KIB, 1),
                compareSwap(7, src, 20 * KIB + 8, remote, 20 * KIB + 8, 0, 1),
                write(8, src, 24 * KIB, 20 * KIB, remote, 24 * KIB),
                send(9, src, 0, 8));
        p.a.post(requests.toArray(WorkRequest[]::new));

        List<WorkCompletion> sent = p.a.sendCompletions(requests.size());
        assertCompletion(sent.getFirst(), 0, REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        for (int i = 1; i < requests.size(); i++) {
            assertCompletion(sent.get(i), i, WR_FLUSH_ERR, requests.get(i).opcode().completionOpcode());
        }
        List<WorkCompletion> received = p.a.recvCompletions(3);
        for (int j = 0; j < 3; j++) {
            assertThat(received.get(j).wrId()).as("flushed receive %d: %s", j, received).isEqualTo(500 + j);
            assertThat(received.get(j).status()).as("status of %s", received.get(j)).isEqualTo(WR_FLUSH_ERR);
        }
        Completions.awaitState(p.a.qp, QpState.ERR);
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(100),
                "send completions after each request completed once");
        Completions.assertNone(p.a.recvCq, Duration.ofMillis(10),
                "receive completions after each receive completed once");
    }

    @Test
    @Timeout(30)
    public void requestsPostedToAQueuePairInErrorAreFlushed() {
        QpPair p = pair(qpConfig().signalAll(false).build());
        long seed = 601;
        MemoryRegion src = p.a.region(4 * KIB);
        MemoryRegion aRcv = p.a.region(4 * KIB);
        MemoryRegion dst = p.b.region(4 * KIB);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(dst.segment(), seed);

        p.a.qp.modifyToError();
        assertThat(p.a.qp.state()).as("state after modifyToError()").isEqualTo(QpState.ERR);
        p.a.post(write(1, src, 0, 64, RemoteRegion.of(dst), 0),
                write(2, src, 64, 64, RemoteRegion.of(dst), 64).signaled(false));
        p.a.postRecv(recv(3, aRcv, 0, 64));

        List<WorkCompletion> sent = p.a.sendCompletions(2);
        assertCompletion(sent.get(0), 1, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE);
        assertCompletion(sent.get(1), 2, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE); // unsignaled, but failed
        WorkCompletion r = p.a.recvCompletion();
        assertThat(r.wrId()).as("wrId of %s", r).isEqualTo(3);
        assertThat(r.status()).as("status of %s", r).isEqualTo(WR_FLUSH_ERR);
        Patterns.assertComplement(dst.segment(), 0, dst.length(), seed, "target of writes posted in ERR");
    }

    @Test
    @Timeout(30)
    public void modifyToErrorFlushesOutstandingSendsAndReceives() {
        QpPair p = pair(qpConfig().rnrRetry(QpConfig.RNR_RETRY_INFINITE).build());
        MemoryRegion src = p.a.region(8 * KIB);
        MemoryRegion aRcv = p.a.region(16 * KIB);
        RemoteRegion remote = RemoteRegion.of(p.b.region(8 * KIB));
        for (int j = 0; j < 4; j++) {
            p.a.postRecv(recv(40 + j, aRcv, j * 4 * KIB, 4 * KIB));
        }
        // b posts no receive: the SEND stays outstanding (RNR, retried forever), the WRITE behind it too.
        p.a.post(send(1, src, 0, KIB), write(2, src, KIB, KIB, remote, 0));
        Completions.awaitCondition(() -> Math.max(p.a.qpCounter(SoftCounter.RNR_NAKS_RECEIVED),
                        p.a.deviceCounter(SoftCounter.RNR_NAKS_RECEIVED)) > 0,
                Duration.ofSeconds(10), "an RNR NAK reaching the requester");

        p.a.qp.modifyToError();

        List<WorkCompletion> sent = p.a.sendCompletions(2);
        assertCompletion(sent.get(0), 1, WR_FLUSH_ERR, WcOpcode.SEND);
        assertCompletion(sent.get(1), 2, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE);
        List<WorkCompletion> received = p.a.recvCompletions(4);
        for (int j = 0; j < 4; j++) {
            assertThat(received.get(j).wrId()).as("flushed receive %d: %s", j, received).isEqualTo(40 + j);
            assertThat(received.get(j).status()).as("status of %s", received.get(j)).isEqualTo(WR_FLUSH_ERR);
        }
        assertThat(p.a.qp.state()).isEqualTo(QpState.ERR);
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(50), "send completions after each request completed once");
    }

    // ------------------------------------------------------------------- 7. selective signaling

    @Test
    @Timeout(30)
    public void unsignaledRequestsProduceNoCompletionUnlessTheyFail() {
        QpPair p = pair(qpConfig().signalAll(false).build());
        long seed = 701;
        long slot = 4 * KIB;
        MemoryRegion src = p.a.region(8 * slot);
        MemoryRegion dst = p.b.region(8 * slot);
        MemoryRegion rcv = p.b.region(8 * slot);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(dst.segment(), seed);
        Patterns.fillComplement(rcv.segment(), seed);
        RemoteRegion remote = RemoteRegion.of(dst);
        p.b.postRecv(recv(77, rcv, 5 * slot, slot));

        for (int i = 0; i < 5; i++) {
            p.a.post(write(i, src, i * slot, slot, remote, i * slot).signaled(false));
        }
        p.a.post(send(5, src, 5 * slot, slot).signaled(false));
        p.a.post(write(6, src, 6 * slot, slot, remote, 6 * slot)); // signaled

        assertCompletion(Completions.take(p.a.sendCq, "the signaled write"), 6, SUCCESS, WcOpcode.RDMA_WRITE);
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(100), "completions of unsignaled requests");
        // Signaling concerns the requester only: the receiver's completion is never optional.
        assertReceive(p.b.recvCompletion(), 77, WcOpcode.RECV, slot, null, p.b);
        for (int i = 0; i < 7; i++) {
            Patterns.assertPattern(i == 5 ? rcv.segment() : dst.segment(), i * slot, slot, seed, "message " + i);
        }
    }

    @Test
    @Timeout(30)
    public void theSignaledFlagIsIgnoredWhenEveryRequestIsSignaled() {
        QpPair p = pair(qpConfig().signalAll(true).build());
        MemoryRegion src = p.a.region(4 * KIB);
        RemoteRegion remote = RemoteRegion.of(p.b.region(4 * KIB));

        for (int i = 0; i < 3; i++) {
            p.a.post(write(i, src, i * KIB, KIB, remote, i * KIB).signaled(false));
        }

        List<WorkCompletion> wcs = p.a.sendCompletions(3);
        for (int i = 0; i < 3; i++) {
            assertCompletion(wcs.get(i), i, SUCCESS, WcOpcode.RDMA_WRITE);
        }
    }

    @Test
    @Timeout(30)
    public void unsignaledRequestsOccupyTheSendQueueUntilALaterSignaledCompletionIsPolled() throws Exception {
        int depth = 8;
        QpPair p = pair(qpConfig().signalAll(false).sendQueueDepth(depth).build());
        long seed = 702;
        long slot = 4 * KIB;
        MemoryRegion src = p.a.region((depth + 1) * slot);
        MemoryRegion dst = p.b.region((depth + 1) * slot);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(dst.segment(), seed);
        RemoteRegion remote = RemoteRegion.of(dst);

        for (int i = 0; i < depth - 1; i++) {
            p.a.post(write(i, src, i * slot, slot, remote, i * slot).signaled(false));
        }
        p.a.post(write(depth - 1, src, (depth - 1) * slot, slot, remote, (depth - 1) * slot));
        Completions.awaitCondition(() -> Patterns.matches(dst.segment(), (depth - 1) * slot, slot, seed),
                Duration.ofSeconds(10), "the data of the last write arriving");
        Thread.sleep(20); // let its completion be generated; the queue stays full until it is polled

        WorkRequest ninth = write(depth, src, depth * slot, slot, remote, depth * slot);
        long start = System.nanoTime();
        assertThatThrownBy(() -> p.a.qp.postSend(ninth))
                .as("post %d on a send queue of depth %d whose signaled completion is not polled yet", depth + 1, depth)
                .isInstanceOf(QueueFullException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to refuse the post (never block)")
                .isLessThan(Duration.ofSeconds(1));

        assertCompletion(Completions.take(p.a.sendCq, "the signaled write"), depth - 1, SUCCESS, WcOpcode.RDMA_WRITE);
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(20), "completions of unsignaled writes");
        assertCompletion(p.a.run(ninth), depth, SUCCESS, WcOpcode.RDMA_WRITE);
        Patterns.assertPattern(dst.segment(), 0, (depth + 1) * slot, seed, "every write");
    }

    @Test
    @Timeout(30)
    public void aFailingUnsignaledRequestCompletesWithItsWrIdStatusAndQueuePairNumber() {
        QpPair p = pair(qpConfig().signalAll(false).build());
        long seed = 703;
        MemoryRegion src = p.a.region(8 * KIB);
        MemoryRegion dst = p.b.region(8 * KIB);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(dst.segment(), seed);
        RemoteRegion badKey = new RemoteRegion(dst.address(), dst.length(), ~dst.remoteKey());
        long wrId = 0xFEED_FACE_CAFE_BEEFL;

        p.a.post(write(wrId, src, 0, 4 * KIB, badKey, 0).signaled(false),
                write(wrId + 1, src, 4 * KIB, 4 * KIB, RemoteRegion.of(dst), 4 * KIB).signaled(false));

        List<WorkCompletion> wcs = p.a.sendCompletions(2);
        assertCompletion(wcs.get(0), wrId, REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        assertCompletion(wcs.get(1), wrId + 1, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE);
        for (WorkCompletion wc : wcs) {
            assertThat(wc.qpn()).as("qpn of %s", wc).isEqualTo(p.a.qp.qpn());
        }
        Patterns.assertComplement(dst.segment(), 0, 4 * KIB, seed, "target of the failed write");
    }

    @Test
    @Timeout(30)
    public void workRequestAndCompletionCountersAreExactAndPerQueuePair() {
        QpConfig config = qpConfig().signalAll(false).build();
        VerbsDevice da = device();
        VerbsDevice db = device();
        ProtectionDomain pa = domain(da);
        ProtectionDomain pb = domain(db);
        QpPair one = QpPair.connect(side(da, pa, config), side(db, pb, config));
        QpPair two = QpPair.connect(side(da, pa, config), side(db, pb, config));
        MemoryRegion src = one.a.region(32 * KIB);
        MemoryRegion aRcv = one.a.region(4 * KIB);
        RemoteRegion remote = RemoteRegion.of(one.b.region(32 * KIB));
        int writes = 20;
        int every = 5;
        for (int j = 0; j < 3; j++) {
            one.a.postRecv(recv(100 + j, aRcv, j * KIB, KIB));
        }
        for (int i = 0; i < writes; i++) {
            one.a.post(write(i, src, i * KIB, KIB, remote, i * KIB).signaled(i % every == every - 1));
        }
        for (int i = 0; i < 7; i++) {
            two.a.post(write(1000 + i, src, i * KIB, KIB, remote, i * KIB)); // signaled
        }
        List<WorkCompletion> first = one.a.sendCompletions(writes / every);
        for (int k = 0; k < first.size(); k++) {
            assertCompletion(first.get(k), (long) k * every + every - 1, SUCCESS, WcOpcode.RDMA_WRITE);
        }
        two.a.sendCompletions(7);
        Completions.assertNone(one.a.sendCq, Duration.ofMillis(50), "completions of unsignaled writes");

        assertThat(one.a.qpCounter(Counter.WR_POSTED)).as("send requests posted on QP one").isEqualTo(writes);
        assertThat(one.a.qpCounter(Counter.RECV_WR_POSTED)).as("receives posted on QP one").isEqualTo(3);
        assertThat(one.a.qpCounter(Counter.COMPLETIONS_GENERATED)).as("completions generated on QP one")
                .isEqualTo(writes / every);
        assertThat(one.a.qpCounter(Counter.COMPLETIONS_POLLED)).as("completions polled on QP one")
                .isEqualTo(writes / every);
        assertThat(two.a.qpCounter(Counter.WR_POSTED)).as("send requests posted on QP two").isEqualTo(7);
        assertThat(two.a.qpCounter(Counter.RECV_WR_POSTED)).as("receives posted on QP two").isZero();
        assertThat(two.a.qpCounter(Counter.COMPLETIONS_GENERATED)).as("completions generated on QP two").isEqualTo(7);
        assertThat(two.a.qpCounter(Counter.COMPLETIONS_POLLED)).as("completions polled on QP two").isEqualTo(7);
        assertThat(da.counters().get(Counter.WR_POSTED)).as("device total of send requests posted")
                .isEqualTo(writes + 7);
        assertThat(da.counters().get(Counter.COMPLETIONS_GENERATED)).as("device total of completions generated")
                .isEqualTo(writes / every + 7);
        assertThat(one.b.qpCounter(Counter.WR_POSTED)).as("send requests posted by the passive side").isZero();
        assertThat(one.b.qpCounter(Counter.COMPLETIONS_GENERATED)).as("completions at the passive side").isZero();
    }

    @Test
    @Timeout(30)
    public void failedAndFlushedUnsignaledRequestsCompleteExactlyOnceRetireTheQueueAndAreCounted() {
        int depth = 8;
        QpPair p = pair(qpConfig().signalAll(false).sendQueueDepth(depth).build());
        MemoryRegion src = p.a.region(16 * KIB);
        MemoryRegion aRcv = p.a.region(4 * KIB);
        MemoryRegion dst = p.b.region(16 * KIB);
        RemoteRegion remote = RemoteRegion.of(dst);
        RemoteRegion badKey = new RemoteRegion(dst.address(), dst.length(), ~dst.remoteKey());
        p.a.postRecv(recv(50, aRcv, 0, KIB), recv(51, aRcv, KIB, KIB));
        for (int i = 0; i < depth; i++) { // a full send queue, none signaled; the fourth fails
            p.a.post(write(i, src, i * KIB, KIB, i == 3 ? badKey : remote, i * KIB).signaled(false));
        }
        assertThatThrownBy(() -> p.a.qp.postSend(write(99, src, 0, KIB, remote, 0).signaled(false)))
                .as("a post beyond a send queue full of unretired requests").isInstanceOf(QueueFullException.class);

        List<WorkCompletion> sent = p.a.sendCompletions(depth - 3);
        assertCompletion(sent.getFirst(), 3, REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        for (int i = 4; i < depth; i++) {
            assertCompletion(sent.get(i - 3), i, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE);
        }
        List<WorkCompletion> received = p.a.recvCompletions(2);
        assertThat(received).extracting(WorkCompletion::status).containsOnly(WR_FLUSH_ERR);
        Completions.awaitState(p.a.qp, QpState.ERR);

        // Polling the failure and the flushes retired every entry, the three successful unsignaled
        // writes before them included: the queue takes depth requests again, each flushed once.
        for (int i = 0; i < depth; i++) {
            p.a.post(write(200 + i, src, i * KIB, KIB, remote, i * KIB).signaled(false));
        }
        List<WorkCompletion> flushed = p.a.sendCompletions(depth);
        for (int i = 0; i < depth; i++) {
            assertCompletion(flushed.get(i), 200 + i, WR_FLUSH_ERR, WcOpcode.RDMA_WRITE);
        }
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(50), "completions after each request completed once");
        assertThat(p.a.qpCounter(Counter.WR_POSTED)).as("send requests posted (the refused one not)")
                .isEqualTo(2L * depth);
        long generated = (depth - 3) + 2 + depth;
        assertThat(p.a.qpCounter(Counter.COMPLETIONS_GENERATED)).as("completions generated").isEqualTo(generated);
        assertThat(p.a.qpCounter(Counter.COMPLETIONS_POLLED)).as("completions polled").isEqualTo(generated);
    }

    // -------------------------------------------------------------------------------- 8. reads

    @Test
    @Timeout(30)
    public void aReadReturnsExactlyTheRemoteBytesAcrossManyMtus() {
        QpPair p = pair(qpConfig().mtu(1024).build());
        long seed = 801;
        long size = 4L * MIB + 3;
        long guard = 64;
        MemoryRegion remote = p.b.region(size + 2 * guard);
        MemoryRegion local = p.a.region(size + 2 * guard);
        Patterns.fill(remote.segment(), seed);
        Patterns.fillComplement(local.segment(), seed);

        WorkCompletion wc = p.a.runOk(read(1, local, guard, size, RemoteRegion.of(remote), guard));

        assertCompletion(wc, 1, SUCCESS, WcOpcode.RDMA_READ);
        assertThat(wc.byteLength()).as("byteLength of %s", wc).isEqualTo(size);
        Patterns.assertPattern(local.segment(), guard, size, seed, "bytes read");
        Patterns.assertComplement(local.segment(), 0, guard, seed, "local bytes before the read buffer");
        Patterns.assertComplement(local.segment(), guard + size, guard, seed, "local bytes after the read buffer");
    }

    @Test
    @Timeout(30)
    public void aReadScattersIntoSeveralEntriesInOrder() {
        QpPair p = pair(qpConfig().mtu(1024).build());
        long seed = 802;
        MemoryRegion remote = p.b.region(64 * KIB);
        MemoryRegion l1 = p.a.region(16 * KIB);
        MemoryRegion l2 = p.a.region(16 * KIB);
        Patterns.fill(remote.segment(), seed);
        Patterns.fillComplement(l1.segment(), seed);
        Patterns.fillComplement(l2.segment(), seed);

        // Remote [1000, 9007) lands in l1[1000, 6000), l2[200, 3200), l1[9000, 9007).
        WorkRequest wr = read(1, l1, 1000, 5000, RemoteRegion.of(remote), 1000).sge(l2, 200, 3000).sge(l1, 9000, 7);
        WorkCompletion wc = p.a.runOk(wr);

        assertThat(wc.byteLength()).as("byteLength of %s", wc).isEqualTo(8007);
        Patterns.assertPattern(l1.segment(), 1000, 5000, seed, 1000, "first SGE");
        Patterns.assertPattern(l2.segment(), 200, 3000, seed, 6000, "second SGE");
        Patterns.assertPattern(l1.segment(), 9000, 7, seed, 9000, "third SGE");
        Patterns.assertComplement(l1.segment(), 0, 1000, seed, "l1 before the first SGE");
        Patterns.assertComplement(l1.segment(), 6000, 3000, seed, "l1 between the SGEs");
        Patterns.assertComplement(l1.segment(), 9007, l1.length() - 9007, seed, "l1 after the third SGE");
        Patterns.assertComplement(l2.segment(), 0, 200, seed, "l2 before the second SGE");
        Patterns.assertComplement(l2.segment(), 3200, l2.length() - 3200, seed, "l2 after the second SGE");
    }

    @Test
    @Timeout(30)
    public void writesGatherAndReceivesScatterSeveralEntriesInOrder() {
        QpPair p = pair(qpConfig().mtu(1024).build());
        long seed = 803;
        MemoryRegion s1 = p.a.region(16 * KIB);
        MemoryRegion s2 = p.a.region(16 * KIB);
        MemoryRegion dst = p.b.region(16 * KIB);
        MemoryRegion r1 = p.b.region(16 * KIB);
        MemoryRegion r2 = p.b.region(16 * KIB);
        Patterns.fill(s1.segment(), seed);
        Patterns.fill(s2.segment(), seed + 1);
        Patterns.fillComplement(dst.segment(), seed);
        Patterns.fillComplement(r1.segment(), seed);
        Patterns.fillComplement(r2.segment(), seed);

        // WRITE gathers s1[100, 2100) + s2[50, 3050) + s1[5000, 5001) into dst[10, 5011).
        p.a.runOk(write(1, s1, 100, 2000, RemoteRegion.of(dst), 10).sge(s2, 50, 3000).sge(s1, 5000, 1));
        Patterns.assertPattern(dst.segment(), 10, 2000, seed, 100, "gathered piece 1");
        Patterns.assertPattern(dst.segment(), 2010, 3000, seed + 1, 50, "gathered piece 2");
        Patterns.assertPattern(dst.segment(), 5010, 1, seed, 5000, "gathered piece 3");
        Patterns.assertComplement(dst.segment(), 0, 10, seed, "before the write");
        Patterns.assertComplement(dst.segment(), 5011, dst.length() - 5011, seed, "after the write");

        // SEND of s1[0, 4000) into a receive scattering over r1[0, 1500) + r2[8, 8008).
        p.b.postRecv(recv(2, r1, 0, 1500).sge(r2, 8, 8000));
        p.a.runOk(send(3, s1, 0, 4000));
        assertReceive(p.b.recvCompletion(), 2, WcOpcode.RECV, 4000, null, p.b);
        Patterns.assertPattern(r1.segment(), 0, 1500, seed, 0, "scattered piece 1");
        Patterns.assertPattern(r2.segment(), 8, 2500, seed, 1500, "scattered piece 2");
        Patterns.assertComplement(r1.segment(), 1500, r1.length() - 1500, seed, "r1 after the message");
        Patterns.assertComplement(r2.segment(), 0, 8, seed, "r2 before the second SGE");
        Patterns.assertComplement(r2.segment(), 2508, r2.length() - 2508, seed, "r2 after the message");
    }

    // ------------------------------------------------------------------------ 9. message sizes

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

    // ------------------------------------------------------------------------ 10. queue limits

    @Test
    @Timeout(30)
    public void postingIsRefusedUntilTheQueuePairIsReady() {
        QpConfig config = qpConfig().build();
        Side a = side(config);
        Side b = side(config);
        MemoryRegion buf = a.region(4 * KIB);
        MemoryRegion dst = b.region(4 * KIB);
        RemoteRegion remote = RemoteRegion.of(dst);

        assertThat(a.qp.state()).as("state of a new queue pair").isEqualTo(QpState.RESET);
        assertThatThrownBy(() -> a.qp.postSend(write(91, buf, 0, 64, remote, 0))).as("postSend in RESET")
                .isInstanceOf(VerbsException.class);
        assertThatThrownBy(() -> a.qp.postRecv(recv(92, buf, 0, 64))).as("postRecv in RESET")
                .isInstanceOf(VerbsException.class);
        a.qp.modifyToInit();
        assertThat(a.qp.state()).isEqualTo(QpState.INIT);
        assertThatThrownBy(() -> a.qp.postSend(write(93, buf, 0, 64, remote, 0))).as("postSend in INIT")
                .isInstanceOf(VerbsException.class);
        a.qp.postRecv(recv(3, buf, 1024, 64)); // receives may be posted from INIT on
        a.qp.modifyToRtr(b.qp.localInfo());
        assertThat(a.qp.state()).isEqualTo(QpState.RTR);
        assertThatThrownBy(() -> a.qp.postSend(write(94, buf, 0, 64, remote, 0))).as("postSend in RTR")
                .isInstanceOf(VerbsException.class);
        a.qp.modifyToRts();
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
        b.qp.connect(a.qp.localInfo());

        assertCompletion(a.run(write(1, buf, 0, 64, remote, 0)), 1, SUCCESS, WcOpcode.RDMA_WRITE);
        Completions.assertNone(a.sendCq, Duration.ofMillis(50), "completions of refused posts");
        b.runOk(send(4, dst, 0, 64));
        assertReceive(a.recvCompletion(), 3, WcOpcode.RECV, 64, null, a);
    }

    @Test
    @Timeout(30)
    public void postingPastTheReceiveQueueDepthThrowsQueueFull() {
        int depth = 4;
        QpPair p = pair(qpConfig().recvQueueDepth(depth).build());
        MemoryRegion src = p.a.region(4 * KIB);
        MemoryRegion rcv = p.b.region((depth + 1) * KIB);
        for (int j = 0; j < depth; j++) {
            p.b.postRecv(recv(j, rcv, j * KIB, KIB));
        }

        assertThatThrownBy(() -> p.b.qp.postRecv(recv(depth, rcv, depth * KIB, KIB)))
                .as("receive %d on a receive queue of depth %d", depth + 1, depth)
                .isInstanceOf(QueueFullException.class);

        // The refusal is not an error of the queue pair: a SEND still consumes the first receive,
        // after which there is room again.
        p.a.runOk(send(1, src, 0, 100));
        assertReceive(p.b.recvCompletion(), 0, WcOpcode.RECV, 100, null, p.b);
        p.b.postRecv(recv(depth, rcv, depth * KIB, KIB));
        assertThat(p.b.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    @Timeout(30)
    public void postingPastTheSendQueueDepthThrowsQueueFullInsteadOfBlocking() {
        int depth = 4;
        QpPair p = pair(qpConfig().sendQueueDepth(depth).rnrRetry(QpConfig.RNR_RETRY_INFINITE).build());
        MemoryRegion src = p.a.region(4 * KIB);
        MemoryRegion rcv = p.b.region(depth * KIB);
        // No receive at b yet: the SENDs stay outstanding (RNR, retried forever).
        for (int i = 0; i < depth; i++) {
            p.a.post(send(i, src, i * KIB, KIB));
        }

        long start = System.nanoTime();
        assertThatThrownBy(() -> p.a.qp.postSend(send(depth, src, 0, KIB)))
                .as("SEND %d on a send queue of depth %d", depth + 1, depth)
                .isInstanceOf(QueueFullException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to refuse the post (never block)")
                .isLessThan(Duration.ofSeconds(1));

        for (int j = 0; j < depth; j++) {
            p.b.postRecv(recv(j, rcv, j * KIB, KIB));
        }
        List<WorkCompletion> wcs = p.a.sendCompletions(depth);
        for (int i = 0; i < depth; i++) {
            assertCompletion(wcs.get(i), i, SUCCESS, WcOpcode.SEND);
        }
        Completions.assertNone(p.a.sendCq, Duration.ofMillis(20), "a completion of the refused post");
    }

    @Test
    @Timeout(30)
    public void aCompletionQueueThatOverflowsSaysSoInsteadOfDroppingCompletions() {
        QpConfig config = qpConfig().build();
        VerbsDevice device = device();
        Side a = new Side(resources, device, domain(device), config, 4, CQ_CAPACITY);
        Side b = side(config);
        QpPair.connect(a, b);
        MemoryRegion src = a.region(16 * KIB);
        RemoteRegion remote = RemoteRegion.of(b.region(16 * KIB));
        CompletionQueue cq = a.sendCq;
        assertThat(cq.capacity()).as("capacity of a queue created for 4").isBetween(4, 15);

        int n = 16;
        for (int i = 0; i < n; i++) {
            a.post(write(i, src, i * KIB, KIB, remote, i * KIB));
        }
        Completions.awaitCondition(cq::isOverflowed, Duration.ofSeconds(10),
                "the completion queue of capacity " + cq.capacity() + " reporting overflow after " + n
                        + " completions");

        List<WorkCompletion> delivered = new ArrayList<>();
        CompletionQueueOverflowException overflow = null;
        WorkCompletion[] into = WorkCompletion.array(n);
        for (int attempt = 0; attempt <= n && overflow == null; attempt++) {
            try {
                int got = cq.poll(into);
                if (got == 0) {
                    fail("poll() returned 0 on an overflowed queue after %d completions instead of throwing",
                            delivered.size());
                }
                for (int i = 0; i < got; i++) {
                    delivered.add(new WorkCompletion().copyFrom(into[i]));
                }
            } catch (CompletionQueueOverflowException e) {
                overflow = e;
            }
        }
        assertThat(overflow).as("poll() on an overflowed queue once drained").isNotNull();
        assertThat(delivered).as("completions that fitted").hasSize(cq.capacity());
        for (int i = 0; i < delivered.size(); i++) {
            assertCompletion(delivered.get(i), i, SUCCESS, WcOpcode.RDMA_WRITE);
        }
        assertThat(cq.isOverflowed()).isTrue();
        Completions.awaitState(a.qp, QpState.ERR);
    }

    // ------------------------------------------------- 11. exactly-once execution, sequence wrap

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
    public void packetSequenceNumbersWrapAroundWithoutLossOrRetransmission() {
        long initialPsn = 0xFFFF_FF00L; // 256 packets before 2^32
        int mtu = QpConfig.MIN_MTU;
        QpConfig.Builder builder = qpConfig().initialPsn(initialPsn).mtu(mtu);
        if (!faultsInjected()) {
            builder.ackTimeout(Duration.ofSeconds(1)); // no spurious timeout on a busy machine
        }
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

        if (!faultsInjected()) {
            assertThat(p.a.qpCounter(SoftCounter.RETRANSMITS)).as("retransmits of a without faults").isZero();
            assertThat(p.b.qpCounter(SoftCounter.RETRANSMITS)).as("retransmits of b without faults").isZero();
        }
    }

    // ----------------------------------------------------- 12. read/atomic limits, fence, atomics

    @Test
    @Timeout(30)
    public void readsBeyondMaxReadAtomicWaitTheirTurnAndAllComplete() {
        QpPair p = pair(qpConfig().maxReadAtomic(2).build());
        long seed = 1201;
        long chunk = 64 * KIB;
        int reads = 10;
        MemoryRegion remote = p.b.region(reads * chunk);
        MemoryRegion local = p.a.region(reads * chunk);
        MemoryRegion src = p.a.region(reads * KIB);
        MemoryRegion dst = p.b.region(reads * KIB);
        Patterns.fill(remote.segment(), seed);
        Patterns.fillComplement(local.segment(), seed);
        Patterns.fill(src.segment(), seed + 1);
        Patterns.fillComplement(dst.segment(), seed + 1);

        // Reads interleaved with writes: completions still in post order.
        for (int i = 0; i < reads; i++) {
            p.a.post(read(2L * i, local, i * chunk, chunk, RemoteRegion.of(remote), i * chunk),
                    write(2L * i + 1, src, i * KIB, KIB, RemoteRegion.of(dst), i * KIB));
        }

        List<WorkCompletion> wcs = p.a.sendCompletions(2 * reads);
        for (int i = 0; i < 2 * reads; i++) {
            assertCompletion(wcs.get(i), i, SUCCESS, i % 2 == 0 ? WcOpcode.RDMA_READ : WcOpcode.RDMA_WRITE);
        }
        Patterns.assertPattern(local.segment(), 0, reads * chunk, seed, "data of 10 reads with maxReadAtomic 2");
        Patterns.assertPattern(dst.segment(), 0, reads * KIB, seed + 1, "data of the writes between them");
    }

    @Test
    @Timeout(30)
    public void aFencedWriteWaitsForEarlierReadsToComplete() {
        QpPair p = pair();
        long oldSeed = 1202;
        long newSeed = 1203;
        long size = MIB;
        MemoryRegion x = p.b.region(size);
        MemoryRegion local = p.a.region(size);
        MemoryRegion fresh = p.a.region(size);
        Patterns.fill(x.segment(), oldSeed);
        Patterns.fillComplement(local.segment(), oldSeed);
        Patterns.fill(fresh.segment(), newSeed);

        p.a.post(read(1, local, 0, size, RemoteRegion.of(x), 0),
                write(2, fresh, 0, size, RemoteRegion.of(x), 0).fence(true));

        List<WorkCompletion> wcs = p.a.sendCompletions(2);
        assertCompletion(wcs.get(0), 1, SUCCESS, WcOpcode.RDMA_READ);
        assertCompletion(wcs.get(1), 2, SUCCESS, WcOpcode.RDMA_WRITE);
        Patterns.assertPattern(local.segment(), 0, size, oldSeed, "what the READ saw before the fenced WRITE");
        Patterns.assertPattern(x.segment(), 0, size, newSeed, "remote memory after the fenced WRITE");
    }

    @Test
    @Timeout(30)
    public void fetchAddReturnsTheOldValueAndAddsAll64Bits() {
        QpPair p = pair();
        MemoryRegion target = p.b.region(4 * KIB);
        MemoryRegion result = p.a.region(4 * KIB);
        MemorySegment t = target.segment();
        MemorySegment r = result.segment();
        t.set(ValueLayout.JAVA_LONG, 64, 0xFFFF_FFFFL); // the add carries into the upper half
        r.set(ValueLayout.JAVA_LONG, 0, -1L);

        assertCompletion(p.a.runOk(fetchAdd(1, result, 0, RemoteRegion.of(target), 64, 2)), 1, SUCCESS,
                WcOpcode.FETCH_ADD);

        assertThat(r.get(ValueLayout.JAVA_LONG, 0)).as("old value returned").isEqualTo(0xFFFF_FFFFL);
        assertThat(t.get(ValueLayout.JAVA_LONG, 64)).as("remote word after the add").isEqualTo(0x1_0000_0001L);
        assertThat(t.get(ValueLayout.JAVA_LONG, 56)).as("the word before").isZero();
        assertThat(t.get(ValueLayout.JAVA_LONG, 72)).as("the word after").isZero();

        p.a.runOk(fetchAdd(2, result, 8, RemoteRegion.of(target), 64, -0x1_0000_0002L));
        assertThat(r.get(ValueLayout.JAVA_LONG, 8)).as("old value returned").isEqualTo(0x1_0000_0001L);
        assertThat(t.get(ValueLayout.JAVA_LONG, 64)).as("remote word after adding a negative number").isEqualTo(-1L);
    }

    @Test
    @Timeout(30)
    public void compareAndSwapSwapsOnlyWhenTheCompareValueMatches() {
        QpPair p = pair();
        MemoryRegion target = p.b.region(4 * KIB);
        MemoryRegion result = p.a.region(4 * KIB);
        MemorySegment t = target.segment();
        MemorySegment r = result.segment();
        long initial = 0x1234_5678_9ABC_DEF0L;
        long swap = 0x0FED_CBA9_8765_4321L;
        t.set(ValueLayout.JAVA_LONG, 8, initial);

        // The compare differs only in the upper 32 bits: a 32-bit compare would wrongly swap.
        p.a.runOk(compareSwap(1, result, 0, RemoteRegion.of(target), 8, initial ^ (1L << 40), swap));
        assertThat(r.get(ValueLayout.JAVA_LONG, 0)).as("old value returned by a failed compare").isEqualTo(initial);
        assertThat(t.get(ValueLayout.JAVA_LONG, 8)).as("remote word after a failed compare").isEqualTo(initial);

        assertCompletion(p.a.runOk(compareSwap(2, result, 8, RemoteRegion.of(target), 8, initial, swap)), 2, SUCCESS,
                WcOpcode.COMP_SWAP);
        assertThat(r.get(ValueLayout.JAVA_LONG, 8)).as("old value returned by a matching compare").isEqualTo(initial);
        assertThat(t.get(ValueLayout.JAVA_LONG, 8)).as("remote word after a matching compare").isEqualTo(swap);
    }

    @Test
    @Timeout(60)
    public void fetchAddsFromFourQueuePairsOnFourThreadsAreExact() throws Exception {
        int qps = 4;
        int perQp = 500;
        QpConfig config = qpConfig().build();
        VerbsDevice da = device();
        VerbsDevice db = device();
        ProtectionDomain pdB = domain(db);
        MemoryRegion target = resources.track(db, pdB.register(allocate(4 * KIB), AccessFlags.ALL));
        List<Side> requesters = new ArrayList<>();
        for (int q = 0; q < qps; q++) {
            Side a = side(da, domain(da), config);
            QpPair.connect(a, side(db, pdB, config));
            requesters.add(a);
        }

        ExecutorService pool = Executors.newFixedThreadPool(qps);
        try {
            List<Future<long[]>> futures = new ArrayList<>();
            for (Side a : requesters) {
                futures.add(pool.submit(() -> {
                    MemoryRegion results = a.region(perQp * 8L);
                    WorkRequest wr = new WorkRequest();
                    for (int i = 0; i < perQp; i++) {
                        wr.clear().wrId(i).opcode(Opcode.ATOMIC_FETCH_ADD).remote(RemoteRegion.of(target), 0)
                                .atomic(1, 0).sge(results, 8L * i, 8);
                        a.qp.postSend(wr); // posting copies: the request is reused at once
                    }
                    List<WorkCompletion> wcs = a.sendCompletions(perQp);
                    long[] old = new long[perQp];
                    for (int i = 0; i < perQp; i++) {
                        assertCompletion(wcs.get(i), i, SUCCESS, WcOpcode.FETCH_ADD);
                        old[i] = results.segment().get(ValueLayout.JAVA_LONG, 8L * i);
                    }
                    return old;
                }));
            }
            Set<Long> seen = new HashSet<>();
            for (Future<long[]> f : futures) {
                long[] old = f.get(50, TimeUnit.SECONDS);
                for (int i = 0; i < perQp; i++) {
                    assertThat(seen.add(old[i])).as("old value %d returned twice", old[i]).isTrue();
                    if (i > 0) {
                        assertThat(old[i]).as("old values of one queue pair increase (they execute in order)")
                                .isGreaterThan(old[i - 1]);
                    }
                }
            }
            assertThat(target.segment().get(ValueLayout.JAVA_LONG, 0)).as("final value").isEqualTo((long) qps * perQp);
            assertThat(seen).as("old values").hasSize(qps * perQp)
                    .allSatisfy(v -> assertThat(v).isBetween(0L, (long) qps * perQp - 1));
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Opcode.class, names = {"ATOMIC_FETCH_ADD", "ATOMIC_CMP_SWAP"})
    @Timeout(30)
    public void aMisalignedAtomicFailsWithRemoteInvalidRequest(Opcode opcode) {
        QpPair p = pair();
        Target t = new Target(p, AccessFlags.ALL, 1204);

        WorkCompletion wc = p.a.run(Requests.remote(opcode, 1, t.local, 0, 8, t.region.address() + 12,
                t.region.remoteKey()));

        assertCompletion(wc, 1, REM_INV_REQ_ERR, opcode.completionOpcode());
        t.assertUntouched("after a misaligned " + opcode);
        Completions.awaitState(p.a.qp, QpState.ERR);
    }

    // -------------------------------------------------------------------- 13. retry semantics

    /**
     * slime4j follows the InfiniBand specification: {@code retryCount} 7 means seven
     * retransmissions and then RETRY_EXC_ERR (only {@code rnrRetry} 7 means "forever"). A transport
     * that read 7 as infinite here would never fail the request, and this test would time out.
     */
    @Test
    @Timeout(30)
    public void retryCountSevenIsFiniteAgainstASilentPeer() {
        Side s = silentPeerSide(qpConfig().ackTimeout(Duration.ofMillis(2)).retryCount(7).build());
        MemoryRegion buf = s.region(4 * KIB);

        long start = System.nanoTime();
        WorkCompletion wc = s.run(write(1, buf, 0, 64, new RemoteRegion(1L << 20, 4096, 0x77), 0));
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

        assertCompletion(wc, 1, RETRY_EXC_ERR, WcOpcode.RDMA_WRITE);
        // 2 ms doubling, capped at 32 times: about 254 ms in all.
        assertThat(elapsed).as("time until RETRY_EXC_ERR with ackTimeout 2 ms, retryCount 7")
                .isLessThan(Duration.ofSeconds(5));
        assertThat(s.qpCounter(SoftCounter.RETRANSMITS))
                .as("retransmissions of the single packet: retryCount 7 = 7 retries")
                .isEqualTo(7);
        Completions.awaitState(s.qp, QpState.ERR);
    }

    // ----------------------------------------------------------------- 14. bulk and counters

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
            long retransmits = p.a.deviceCounter(SoftCounter.RETRANSMITS) + p.b.deviceCounter(SoftCounter.RETRANSMITS)
                    + p.a.qpCounter(SoftCounter.RETRANSMITS) + p.b.qpCounter(SoftCounter.RETRANSMITS);
            assertThat(retransmits).as("retransmissions on a faulty wire (devices and queue pairs)").isPositive();
            assertThat(Math.max(p.b.deviceCounter(SoftCounter.DUPLICATES), p.b.qpCounter(SoftCounter.DUPLICATES)))
                    .as("duplicates seen by the receiving side on a faulty wire").isPositive();
        }
    }

    @Test
    @Timeout(30)
    public void countersAreReadableOnDevicesAndQueuePairsAndCountTheTraffic() {
        QpPair p = pair();
        MemoryRegion src = p.a.region(64 * KIB);
        MemoryRegion dst = p.b.region(64 * KIB);
        p.b.postRecv(recv(1, dst, 32 * KIB, 16 * KIB));
        long payload = 0;
        for (int i = 0; i < 3; i++) {
            p.a.runOk(write(i, src, i * 10 * KIB, 10 * KIB, RemoteRegion.of(dst), i * 10 * KIB));
            payload += 10 * KIB;
        }
        p.a.runOk(send(3, src, 0, 16 * KIB));
        payload += 16 * KIB;
        p.b.recvCompletion();

        for (Counters counters : List.of(p.a.device.counters(), p.b.device.counters(), p.a.qp.counters(),
                p.b.qp.counters())) {
            assertThat(counters.snapshot()).as("snapshot").containsOnlyKeys(Counter.values());
            assertThat(List.copyOf(counters.snapshot().keySet())).as("snapshot order (by id)")
                    .containsExactly(Counter.values());
            assertThat(counters.snapshot().values()).as("counter values")
                    .allSatisfy(v -> assertThat(v).isNotNegative());
        }
        for (int i = 1; i < Counter.values().length; i++) {
            assertThat(Counter.values()[i].id()).isGreaterThan(Counter.values()[i - 1].id());
        }
        assertThat(p.a.deviceCounter(Counter.PACKETS_SENT)).as("device packets sent").isGreaterThanOrEqualTo(4);
        assertThat(p.a.qpCounter(Counter.PACKETS_SENT)).as("queue pair packets sent").isGreaterThanOrEqualTo(4);
        assertThat(p.a.deviceCounter(Counter.BYTES_SENT)).as("device bytes sent").isGreaterThanOrEqualTo(payload);
        assertThat(p.a.qpCounter(Counter.BYTES_SENT)).as("queue pair bytes sent").isGreaterThanOrEqualTo(payload);
        assertThat(p.b.deviceCounter(Counter.PACKETS_RECEIVED)).as("peer packets received").isGreaterThanOrEqualTo(4);
        assertThat(p.b.deviceCounter(Counter.BYTES_RECEIVED)).as("peer bytes received").isGreaterThanOrEqualTo(payload);
        assertThat(p.a.qpCounter(Counter.WR_POSTED)).as("work requests posted").isGreaterThanOrEqualTo(4);
        assertThat(p.a.deviceCounter(Counter.COMPLETIONS_GENERATED)).as("completions generated")
                .isGreaterThanOrEqualTo(4);
        assertThat(p.a.deviceCounter(Counter.COMPLETIONS_POLLED)).as("completions polled").isGreaterThanOrEqualTo(4);
        assertThat(p.a.deviceCounter(Counter.AGENT_ERRORS)).as("progress agent errors").isZero();
        assertThat(p.b.deviceCounter(Counter.AGENT_ERRORS)).as("progress agent errors").isZero();
    }

    // ------------------------------------------------------------ 15. memory registration

    @Test
    @Timeout(30)
    public void registeringAHeapSegmentIsRefusedWithAClearMessage() {
        ProtectionDomain pd = domain(device());

        assertThatThrownBy(() -> pd.register(MemorySegment.ofArray(new byte[4096]), AccessFlags.ALL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageMatching("(?is).*(heap|native).*");
    }

    @Test
    @Timeout(30)
    public void registeringAThreadConfinedSegmentIsRefusedWithAClearMessage() {
        ProtectionDomain pd = domain(device());

        try (Arena confined = Arena.ofConfined()) {
            MemorySegment segment = confined.allocate(4096);
            assertThatThrownBy(() -> pd.register(segment, AccessFlags.ALL))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageMatching("(?is).*(confined|thread|shared).*");
        }
    }

    @Test
    @Timeout(30)
    public void registeringRemoteWriteWithoutLocalWriteIsRefused() {
        ProtectionDomain pd = domain(device());

        assertThatThrownBy(() -> pd.register(allocate(4096), AccessFlags.REMOTE_WRITE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> pd.register(allocate(4096), AccessFlags.REMOTE_ATOMIC | AccessFlags.REMOTE_READ))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @Timeout(60)
    public void regionsLargerThan4GiBRegisterAndAccessesBeyond4GiBLandThere(@TempDir Path dir) throws IOException {
        QpPair p = pair();
        long size = 5L << 30;
        long seed = 1501;
        Arena mapping = closeAfterTest(Arena.ofShared());
        MemorySegment big;
        try (FileChannel channel = FileChannel.open(dir.resolve("sparse-5GiB.bin"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.SPARSE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            big = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, mapping);
        }
        MemoryRegion target = p.b.register(big, AccessFlags.ALL);
        assertThat(target.length()).as("length of the registered region").isEqualTo(size);
        RemoteRegion remote = RemoteRegion.of(target);
        long chunk = 64 * KIB;
        MemoryRegion src = p.a.region(chunk);
        MemoryRegion back = p.a.region(chunk);
        Patterns.fill(src.segment(), seed);
        Patterns.fillComplement(back.segment(), seed + 1);

        long far = (4L << 30) + 12_345; // truncated to 32 bits: 12 345
        p.a.runOk(write(1, src, 0, chunk, remote, far));
        Patterns.assertPattern(big, far, chunk, seed, 0, "write beyond 4 GiB");
        Patterns.assertZero(big, 12_345, chunk, "the offset the write would reach if truncated to 32 bits");

        long farther = size - chunk - 8; // near the end of the 5 GiB
        Patterns.fill(big.asSlice(farther, chunk), seed + 1);
        p.a.runOk(read(2, back, 0, chunk, remote, farther));
        Patterns.assertPattern(back.segment(), 0, chunk, seed + 1, "read from beyond 4 GiB");
    }

    @Test
    @Timeout(30)
    public void keysDifferBetweenRegionsAndRegistrationsAndCarryRandomTagBits() {
        VerbsDevice d1 = device();
        ProtectionDomain pd = domain(d1);
        MemorySegment segment = allocate(4096);

        MemoryRegion r1 = resources.track(d1, pd.register(segment, AccessFlags.ALL));
        MemoryRegion r2 = resources.track(d1, pd.register(segment, AccessFlags.ALL));
        assertThat(r1.remoteKey()).as("remote keys of two regions over the same memory").isNotEqualTo(r2.remoteKey());
        assertThat(r1.localKey()).as("local keys of two regions over the same memory").isNotEqualTo(r2.localKey());
        assertThat(r1.address()).isEqualTo(segment.address());
        assertThat(r1.length()).isEqualTo(segment.byteSize());
        assertThat(r1.accessFlags()).isEqualTo(AccessFlags.ALL);

        Set<Long> keys = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            MemoryRegion r = pd.register(segment, AccessFlags.ALL);
            assertThat(keys.add(r.remoteKey())).as("remote key of registration %d is new: %s", i, keys).isTrue();
            r.close();
            assertThat(r.isRegistered()).isFalse();
        }

        // Two fresh devices registering the same way must not hand out the same keys.
        List<List<Long>> sequences = new ArrayList<>();
        for (int d = 0; d < 2; d++) {
            VerbsDevice device = device();
            ProtectionDomain fresh = domain(device);
            List<Long> sequence = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                sequence.add(resources.track(device, fresh.register(segment, AccessFlags.ALL)).remoteKey());
            }
            sequences.add(sequence);
        }
        assertThat(sequences.get(0)).as("keys of a fresh device vs another fresh device (random tags)")
                .isNotEqualTo(sequences.get(1));
    }

    @Test
    @Timeout(30)
    public void aStaleKeyIsRefusedEvenAfterTheSameMemoryIsRegisteredAgain() {
        QpPair p = pair();
        long seed = 1502;
        MemorySegment memory = allocate(64 * KIB);
        Patterns.fill(memory, seed);
        MemoryRegion old = p.b.register(memory, AccessFlags.ALL);
        RemoteRegion stale = RemoteRegion.of(old);
        old.close();
        MemoryRegion fresh = p.b.register(memory, AccessFlags.ALL);
        assertThat(fresh.remoteKey()).as("key of the new registration").isNotEqualTo(stale.remoteKey());
        MemoryRegion src = p.a.region(64 * KIB);
        Patterns.fillComplement(src.segment(), seed);

        WorkCompletion wc = p.a.run(write(1, src, 0, 4 * KIB, stale, 0));

        assertCompletion(wc, 1, REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        Patterns.assertPattern(memory, 0, memory.byteSize(), seed, "memory re-registered under a new key");
    }

    @Test
    @Timeout(30)
    public void aRemoteKeyOfAnotherProtectionDomainIsRefused() {
        QpPair p = pair();
        long seed = 1503;
        ProtectionDomain other = domain(p.b.device);
        MemoryRegion foreign = resources.track(p.b.device, other.register(allocate(64 * KIB), AccessFlags.ALL));
        Patterns.fill(foreign.segment(), seed);
        MemoryRegion src = p.a.region(64 * KIB);
        Patterns.fillComplement(src.segment(), seed);

        WorkCompletion wc = p.a.run(write(1, src, 0, 4 * KIB, RemoteRegion.of(foreign), 0));

        assertCompletion(wc, 1, REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        Patterns.assertPattern(foreign.segment(), 0, foreign.length(), seed, "region of another protection domain");
    }

    @Test
    @Timeout(30)
    public void aLocalKeyOfAnotherProtectionDomainIsRefused() {
        QpPair p = pair();
        long seed = 1504;
        ProtectionDomain other = domain(p.a.device);
        MemoryRegion foreign = resources.track(p.a.device, other.register(allocate(64 * KIB), AccessFlags.ALL));
        Patterns.fill(foreign.segment(), seed);
        MemoryRegion dst = p.b.region(64 * KIB);
        Patterns.fillComplement(dst.segment(), seed);

        WorkCompletion wc = p.a.run(write(1, foreign, 0, 4 * KIB, RemoteRegion.of(dst), 0));

        assertCompletion(wc, 1, LOC_PROT_ERR, WcOpcode.RDMA_WRITE);
        Patterns.assertComplement(dst.segment(), 0, dst.length(), seed, "remote memory");
    }

    // ------------------------------------------------------------------------------- helpers

    /**
     * A target region on {@code b} filled with a pattern, and a local buffer on {@code a} filled with
     * its complement (so that any byte written into the target would change it).
     */
    static final class Target {
        static final long SIZE = 64 * KIB;
        final MemoryRegion region;
        final MemoryRegion local;
        private final MemorySegment memory;
        private final long seed;

        Target(QpPair p, int accessFlags, long seed) {
            this.seed = seed;
            this.region = p.b.region(SIZE, accessFlags);
            this.memory = region.segment();
            this.local = p.a.region(SIZE);
            Patterns.fill(memory, seed);
            Patterns.fillComplement(local.segment(), seed);
        }

        void assertUntouched(String what) {
            Patterns.assertPattern(memory, 0, SIZE, seed, what);
        }
    }

    static void assertCompletion(WorkCompletion wc, long wrId, WcStatus status, WcOpcode opcode) {
        assertThat(wc.wrId()).as("wrId of %s", wc).isEqualTo(wrId);
        assertThat(wc.status()).as("status of %s", wc).isEqualTo(status);
        assertThat(wc.opcode()).as("opcode of %s", wc).isEqualTo(opcode);
    }

    /** A successful receive completion; {@code immediate} null means none. */
    static void assertReceive(WorkCompletion wc, long wrId, WcOpcode opcode, long byteLength, Integer immediate,
                              Side receiver) {
        assertCompletion(wc, wrId, SUCCESS, opcode);
        assertThat((long) wc.byteLength()).as("byteLength of %s", wc).isEqualTo(byteLength);
        assertThat(wc.hasImmediate()).as("hasImmediate of %s", wc).isEqualTo(immediate != null);
        if (immediate != null) {
            assertThat(wc.immediate()).as("immediate of %s", wc).isEqualTo(immediate.intValue());
        }
        assertThat(wc.qpn()).as("qpn of %s", wc).isEqualTo(receiver.qp.qpn());
    }

    @Test
    @Timeout(30)
    public void awaitReadyWaitsForACompletionWithoutPollingIt() throws Exception {
        QpConfig config = qpConfig().build();
        Side a = side(config);
        Side b = side(config);
        QpPair.connect(a, b);
        MemoryRegion src = a.region(16 * KIB);
        RemoteRegion remote = RemoteRegion.of(b.region(16 * KIB));
        CompletionQueue cq = a.sendCq;
        assertThat(cq.awaitReady(1, TimeUnit.MILLISECONDS)).as("awaitReady on an empty queue").isFalse();
        assertThat(cq.awaitReady(0, TimeUnit.NANOSECONDS)).as("awaitReady(0) on an empty queue").isFalse();

        java.util.concurrent.atomic.AtomicReference<Object> woke = new java.util.concurrent.atomic.AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                woke.set(cq.awaitReady(20, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                woke.set(e);
            }
        });
        Completions.awaitCondition(() -> waiter.getState() == Thread.State.TIMED_WAITING, Duration.ofSeconds(10),
                "the waiter blocked in awaitReady");
        a.post(write(7, src, 0, KIB, remote, 0));
        waiter.join(10_000);
        assertThat(woke.get()).as("what the blocked awaitReady returned once a completion arrived").isEqualTo(true);
        assertThat(cq.awaitReady(0, TimeUnit.NANOSECONDS)).as("still ready: awaitReady polled nothing").isTrue();
        WorkCompletion[] into = WorkCompletion.array(4);
        assertThat(cq.poll(into)).isEqualTo(1);
        assertCompletion(into[0], 7, SUCCESS, WcOpcode.RDMA_WRITE);

        java.util.concurrent.atomic.AtomicReference<Object> interrupted = new java.util.concurrent.atomic.AtomicReference<>();
        Thread second = Thread.ofPlatform().start(() -> {
            try {
                interrupted.set(cq.awaitReady(20, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                interrupted.set(e);
            }
        });
        Completions.awaitCondition(() -> second.getState() == Thread.State.TIMED_WAITING, Duration.ofSeconds(10),
                "the second waiter blocked in awaitReady");
        second.interrupt();
        second.join(10_000);
        assertThat(interrupted.get()).as("an interrupted awaitReady").isInstanceOf(InterruptedException.class);
    }
}
