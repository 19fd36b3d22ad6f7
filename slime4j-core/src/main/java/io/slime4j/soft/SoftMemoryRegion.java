package io.slime4j.soft;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * A region registered with a {@link SoftDevice}. {@link #close()} invalidates both keys at once
 * and then waits until the progress agent has finished any access it had begun, so that once it
 * returns no byte of the region is touched through its keys again.
 */
final class SoftMemoryRegion implements MemoryRegion {
    private final SoftProtectionDomain pd;
    private final KeyTable.Entry entry;

    SoftMemoryRegion(SoftProtectionDomain pd, KeyTable.Entry entry) {
        this.pd = pd;
        this.entry = entry;
    }

    @Override
    public MemorySegment segment() {
        return entry.segment;
    }

    @Override
    public long address() {
        return entry.address;
    }

    @Override
    public long length() {
        return entry.length;
    }

    @Override
    public long localKey() {
        return entry.localKey;
    }

    @Override
    public long remoteKey() {
        return entry.remoteKey;
    }

    @Override
    public int accessFlags() {
        return entry.access;
    }

    @Override
    public boolean isRegistered() {
        return entry.valid;
    }

    @Override
    public void close() {
        if (!entry.valid) {
            return;
        }
        SoftDevice device = pd.device();
        device.keyTable().deregister(entry);
        pd.forget(this);
        device.awaitQuiescence();
    }

    @Override
    public String toString() {
        return "MemoryRegion{address=0x" + Long.toHexString(entry.address) + ", length=" + entry.length
                + ", access=" + AccessFlags.toString(entry.access) + ", registered=" + entry.valid + "}";
    }
}
