package io.slime4j.shm;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.RemoteRegion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.Arena;

/**
 * A test fixture: two shm devices of this process ({@code name-a}, {@code name-b}), a queue pair on
 * each connected to the other, a 4 KiB region of shared memory on each ({@code src} on a, {@code dst}
 * on b), completion queues of 64. Closing it closes both devices; the arena stays the caller's.
 */
record ShmPair(ShmDevice a, ShmDevice b, MemoryRegion src, MemoryRegion dst, CompletionQueue scq,
               CompletionQueue rcq, QueuePair qa, QueuePair qb) implements AutoCloseable {
    static ShmPair open(String name, boolean busy, Arena arena) {
        ShmDevice a = ShmDevice.open(ShmConfig.builder().name(name + "-a").busyPoll(busy).build());
        ShmDevice b = ShmDevice.open(ShmConfig.builder().name(name + "-b").busyPoll(busy).build());
        ProtectionDomain pdA = a.allocateProtectionDomain();
        ProtectionDomain pdB = b.allocateProtectionDomain();
        MemoryRegion src = pdA.register(SharedMemory.allocate(4096, arena), AccessFlags.ALL);
        MemoryRegion dst = pdB.register(SharedMemory.allocate(4096, arena), AccessFlags.ALL);
        CompletionQueue scq = a.createCompletionQueue(64);
        CompletionQueue rcq = b.createCompletionQueue(64);
        QueuePair qa = a.createQueuePair(pdA, QpConfig.defaults(), scq, a.createCompletionQueue(64));
        QueuePair qb = b.createQueuePair(pdB, QpConfig.defaults(), b.createCompletionQueue(64), rcq);
        qa.connect(qb.localInfo());
        qb.connect(qa.localInfo());
        return new ShmPair(a, b, src, dst, scq, rcq, qa, qb);
    }

    /** A 64-byte RDMA WRITE from {@code src} into the peer's exported {@code dst} at {@code offset}. */
    WorkRequest write(long wrId, long offset) {
        return new WorkRequest().wrId(wrId).opcode(Opcode.RDMA_WRITE).sge(src, 0, 64)
                .remote(RemoteRegion.of(dst), offset);
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }
}
