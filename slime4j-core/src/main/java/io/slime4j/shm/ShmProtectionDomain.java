package io.slime4j.shm;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.ProtectionDomain;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A protection domain of an {@link ShmDevice}: keys are valid only on its own queue pairs. */
final class ShmProtectionDomain implements ProtectionDomain {
    private static final AtomicInteger IDS = new AtomicInteger();

    private final ShmDevice device;
    final int id = IDS.incrementAndGet();
    private final Set<ShmRegion> regions = ConcurrentHashMap.newKeySet();

    ShmProtectionDomain(ShmDevice device) {
        this.device = device;
    }

    ShmDevice device() {
        return device;
    }

    @Override
    public MemoryRegion register(MemorySegment segment, int accessFlags) {
        AccessFlags.validate(accessFlags);
        if (segment == null) {
            throw new IllegalArgumentException("segment must not be null");
        }
        if (!segment.isNative()) {
            throw new IllegalArgumentException("cannot register heap memory (" + segment
                    + "): allocate native memory from a shared or global arena, or SharedMemory.allocate");
        }
        if (segment.scope() != null && !segment.isAccessibleBy(new Thread(() -> {}))) {
            throw new IllegalArgumentException("cannot register thread-confined memory (" + segment
                    + "): the device's agent thread must reach it; use a shared or global arena");
        }
        device.checkOpen("register");
        RegionTable table = device.regions();
        synchronized (table) {
            ShmRegion r = new ShmRegion(this, segment, table.newKey(), accessFlags);
            table.add(r);
            regions.add(r);
            r.export();
            return r;
        }
    }

    void forget(ShmRegion region) {
        regions.remove(region);
    }

    @Override
    public void close() {
        for (ShmRegion r : new ArrayList<>(regions)) {
            r.close();
        }
    }

    List<ShmRegion> regions() {
        return List.copyOf(regions);
    }
}
