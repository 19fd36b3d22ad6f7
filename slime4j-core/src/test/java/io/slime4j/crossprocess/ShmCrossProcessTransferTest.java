package io.slime4j.crossprocess;

import io.slime4j.verbs.QpConfig;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * The cross-process transfer test on the shm device with both sides' regions in
 * {@link io.slime4j.shm.SharedMemory}: each side maps the other's memfd and every byte moves with
 * one {@code memcpy}, byte-exact from 1 byte to 16 MiB.
 */
class ShmCrossProcessTransferTest extends CrossProcessTransferTest {
    /** Whether the regions come from shared memory (else private memory: process_vm_readv/writev). */
    protected boolean sharedMemory() {
        return true;
    }

    @Override
    protected String[] peerOptions(String... base) {
        return Stream.concat(Arrays.stream(base),
                Stream.of("--device", "shm", "--memory", sharedMemory() ? "shared" : "private")).toArray(String[]::new);
    }

    @Override
    protected LocalSide newLocalSide(String name, QpConfig qp) {
        return LocalSide.shm(name, qp, sharedMemory());
    }

    @Override
    protected String transport() {
        return "shm, " + (sharedMemory() ? "shared memory (memfd mappings)" : "private memory (process_vm_readv/writev)");
    }
}
