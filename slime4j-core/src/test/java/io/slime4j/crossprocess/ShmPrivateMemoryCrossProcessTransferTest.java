package io.slime4j.crossprocess;

/**
 * The cross-process transfer test on the shm device with both sides' regions in ordinary private
 * memory: the responder reaches the requester's memory with {@code process_vm_readv}/{@code writev}
 * (one kernel copy), byte-exact from 1 byte to 16 MiB.
 */
class ShmPrivateMemoryCrossProcessTransferTest extends ShmCrossProcessTransferTest {
    @Override
    protected boolean sharedMemory() {
        return false;
    }
}
