package io.slime4j.conformance;

import static io.slime4j.conformance.Requests.read;
import static io.slime4j.conformance.Requests.recv;
import static io.slime4j.conformance.Requests.send;
import static io.slime4j.conformance.Requests.write;
import static io.slime4j.verbs.WcStatus.LOC_LEN_ERR;
import static io.slime4j.verbs.WcStatus.LOC_PROT_ERR;
import static io.slime4j.verbs.WcStatus.REM_ACCESS_ERR;
import static io.slime4j.verbs.WcStatus.REM_INV_REQ_ERR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Access checks: bad or foreign remote keys, out-of-bounds addresses, missing permissions,
 * deregistered regions, bad local keys and local bounds each fail the request with the status the
 * contract names and leave the target memory untouched.
 *
 * <p>Each device runs it through a subclass in its own package (see {@link DeviceFixture}).
 */
public abstract class AccessCheckConformance extends ConformanceSuite {
    protected AccessCheckConformance(DeviceFixture fixture) {
        super(fixture);
    }

    // --------------------------------------------------------------------------- access errors

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
    @MethodSource("io.slime4j.conformance.AccessCheckConformance#outOfBoundsAccesses")
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
    @MethodSource("io.slime4j.conformance.AccessCheckConformance#missingPermissions")
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
}
