package io.slime4j.soft;

import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.VerbsException;

import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A protection domain of a {@link SoftDevice}: registers memory into the device's key table. */
final class SoftProtectionDomain implements ProtectionDomain {
    private final SoftDevice device;
    private final Set<SoftMemoryRegion> regions = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    SoftProtectionDomain(SoftDevice device) {
        this.device = device;
    }

    SoftDevice device() {
        return device;
    }

    @Override
    public MemoryRegion register(MemorySegment segment, int accessFlags) {
        if (closed) {
            throw new VerbsException("protection domain of device " + device.name() + " is closed");
        }
        if (segment == null) {
            throw new IllegalArgumentException("segment must not be null");
        }
        if (!segment.isNative()) {
            throw new IllegalArgumentException("cannot register heap memory (" + segment
                    + "): allocate from an Arena (shared, global or automatic) or map a file");
        }
        if (!segment.isAccessibleBy(new Thread(() -> { }))) {
            throw new IllegalArgumentException("cannot register thread-confined memory (" + segment
                    + "): the device's progress thread must reach it; use Arena.ofShared(), ofAuto() or global()");
        }
        if (segment.isReadOnly() && (accessFlags & io.slime4j.verbs.AccessFlags.LOCAL_WRITE) != 0) {
            throw new IllegalArgumentException("read-only segment cannot be registered with LOCAL_WRITE");
        }
        SoftMemoryRegion mr = new SoftMemoryRegion(this, device.keyTable().register(segment, accessFlags, this));
        regions.add(mr);
        return mr;
    }

    void forget(SoftMemoryRegion mr) {
        regions.remove(mr);
    }

    @Override
    public void close() {
        closed = true;
        for (SoftMemoryRegion mr : regions) {
            mr.close();
        }
    }
}
