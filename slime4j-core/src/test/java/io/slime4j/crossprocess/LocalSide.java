package io.slime4j.crossprocess;

import io.slime4j.shm.SharedMemory;
import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The test process's side: a soft device on a UDP rail of 127.0.0.1 (or an shm device, see
 * {@link #shm}) with one queue pair.
 */
final class LocalSide implements AutoCloseable {
    final UdpWire wire;
    final Arena arena = Arena.ofShared();
    final VerbsDevice device;
    private final boolean sharedMemory;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;

    LocalSide(String name, QpConfig config) {
        this(name, config, "udp:127.0.0.1:0");
    }

    /** A side bound at {@code bind} (e.g. an address inside a test's network namespace). */
    LocalSide(String name, QpConfig config, String bind) {
        this(new UdpWire(UdpConfig.defaults()), name, config, false, bind);
    }

    private LocalSide(UdpWire wire, String name, QpConfig config, boolean sharedMemory, String bind) {
        this.wire = wire;
        this.sharedMemory = sharedMemory;
        device = wire == null ? ShmDevice.open(ShmConfig.builder().name(name).build())
                : SoftDevice.open(wire, bind, SoftConfig.builder().name(name).build());
        pd = device.allocateProtectionDomain();
        cq = device.createCompletionQueue(4096);
        qp = device.createQueuePair(pd, config, cq, cq);
    }

    /** The side on an shm device; regions from {@link SharedMemory} when {@code sharedMemory}. */
    static LocalSide shm(String name, QpConfig config, boolean sharedMemory) {
        return new LocalSide(null, name, config, sharedMemory, null);
    }

    /** Zeroed memory registered with every access. */
    MemoryRegion region(long size) {
        return pd.register(sharedMemory ? SharedMemory.allocate(size, arena) : arena.allocate(size, 4096),
                AccessFlags.ALL);
    }

    /**
     * Takes exactly {@code n} completions, oldest first, as copies; stops early if
     * {@code quietSeconds} pass without one.
     */
    List<WorkCompletion> take(int n, long quietSeconds) throws InterruptedException {
        List<WorkCompletion> taken = new ArrayList<>(n);
        while (taken.size() < n) {
            WorkCompletion[] into = WorkCompletion.array(Math.min(256, n - taken.size()));
            int got = cq.await(into, quietSeconds, TimeUnit.SECONDS);
            if (got == 0) {
                break;
            }
            for (int i = 0; i < got; i++) {
                taken.add(new WorkCompletion().copyFrom(into[i]));
            }
        }
        return taken;
    }

    private boolean closed;

    /** Closes the device (stopping its agent), then the wire and the memory; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            device.close();
        } finally {
            if (wire != null) {
                wire.close();
            }
            arena.close();
        }
    }
}
