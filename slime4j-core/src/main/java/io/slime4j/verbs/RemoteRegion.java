package io.slime4j.verbs;

/**
 * What a peer needs to reach a registered region: its address, length and remote key. A plain
 * value meant to be exchanged out of band.
 *
 * @param address   address of byte 0 of the region, as {@link MemoryRegion#address()}
 * @param length    length in bytes
 * @param remoteKey the region's {@link MemoryRegion#remoteKey()}
 */
public record RemoteRegion(long address, long length, long remoteKey) {
    public RemoteRegion {
        if (length < 0) {
            throw new IllegalArgumentException("length must not be negative, was " + length);
        }
    }

    /** Describes a local region for a peer. */
    public static RemoteRegion of(MemoryRegion region) {
        return new RemoteRegion(region.address(), region.length(), region.remoteKey());
    }
}
