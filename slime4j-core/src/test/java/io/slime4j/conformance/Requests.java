package io.slime4j.conformance;

import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WorkRequest;

/**
 * Builders for the work requests the suite posts. A zero length means a request without any
 * scatter/gather entry (a zero-length message, as {@code num_sge = 0} in ibverbs). The returned
 * request may be refined further ({@code signaled(false)}, {@code fence(true)}).
 */
final class Requests {
    private Requests() {}

    static WorkRequest send(long wrId, MemoryRegion src, long offset, long length) {
        return withSge(new WorkRequest().wrId(wrId).opcode(Opcode.SEND), src, offset, length);
    }

    static WorkRequest sendWithImm(long wrId, MemoryRegion src, long offset, long length, int immediate) {
        return withSge(new WorkRequest().wrId(wrId).opcode(Opcode.SEND_WITH_IMM).immediate(immediate),
                src, offset, length);
    }

    static WorkRequest write(long wrId, MemoryRegion src, long offset, long length, RemoteRegion dst, long dstOffset) {
        return withSge(new WorkRequest().wrId(wrId).opcode(Opcode.RDMA_WRITE).remote(dst, dstOffset),
                src, offset, length);
    }

    static WorkRequest writeWithImm(long wrId, MemoryRegion src, long offset, long length, RemoteRegion dst,
                                    long dstOffset, int immediate) {
        return withSge(new WorkRequest().wrId(wrId).opcode(Opcode.RDMA_WRITE_WITH_IMM).remote(dst, dstOffset)
                .immediate(immediate), src, offset, length);
    }

    static WorkRequest read(long wrId, MemoryRegion dst, long offset, long length, RemoteRegion src, long srcOffset) {
        return withSge(new WorkRequest().wrId(wrId).opcode(Opcode.RDMA_READ).remote(src, srcOffset),
                dst, offset, length);
    }

    /** FETCH_ADD of {@code add} on the remote word; the old value lands in {@code result[offset, offset + 8)}. */
    static WorkRequest fetchAdd(long wrId, MemoryRegion result, long offset, RemoteRegion target, long targetOffset,
                                long add) {
        return new WorkRequest().wrId(wrId).opcode(Opcode.ATOMIC_FETCH_ADD).remote(target, targetOffset)
                .atomic(add, 0).sge(result, offset, 8);
    }

    /** CMP_SWAP on the remote word; the old value lands in {@code result[offset, offset + 8)}. */
    static WorkRequest compareSwap(long wrId, MemoryRegion result, long offset, RemoteRegion target,
                                   long targetOffset, long compare, long swap) {
        return new WorkRequest().wrId(wrId).opcode(Opcode.ATOMIC_CMP_SWAP).remote(target, targetOffset)
                .atomic(compare, swap).sge(result, offset, 8);
    }

    static WorkRequest recv(long wrId, MemoryRegion buffer, long offset, long length) {
        return withSge(new WorkRequest().wrId(wrId), buffer, offset, length);
    }

    /**
     * Any remote opcode against a raw remote address and key, with a local SGE of {@code length}
     * bytes (8 for atomics, whatever {@code length} says). Atomics add 1 or compare 1 / swap 2.
     */
    static WorkRequest remote(Opcode opcode, long wrId, MemoryRegion local, long offset, long length,
                              long remoteAddress, long remoteKey) {
        WorkRequest wr = new WorkRequest().wrId(wrId).opcode(opcode).remote(remoteAddress, remoteKey);
        if (opcode.isAtomic()) {
            return wr.atomic(1, 2).sge(local, offset, 8);
        }
        if (opcode.hasImmediate()) {
            wr.immediate(0x1D1D_1D1D);
        }
        return withSge(wr, local, offset, length);
    }

    private static WorkRequest withSge(WorkRequest wr, MemoryRegion region, long offset, long length) {
        return length == 0 ? wr : wr.sge(region, offset, length);
    }
}
