package io.slime4j.endpoint;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;

/**
 * A registered region as a peer sees it: the address of byte 0, the length, the remote key and
 * the access flags (so that a call is refused at once, not failed remotely, when the peer did not
 * grant the access). Part of {@link EndpointInfo}; a plain value.
 *
 * @param address     address of byte 0, as {@link MemoryRegion#address()}
 * @param length      length in bytes
 * @param remoteKey   the region's remote key
 * @param accessFlags the {@link AccessFlags} granted
 */
public record RegionInfo(long address, long length, long remoteKey, int accessFlags) {
    /** Validates the length and the flags. */
    public RegionInfo {
        if (length < 0) {
            throw new IllegalArgumentException("region length must not be negative, was " + length);
        }
        AccessFlags.validate(accessFlags);
    }

    /** Describes a local region. */
    public static RegionInfo of(MemoryRegion region) {
        return new RegionInfo(region.address(), region.length(), region.remoteKey(), region.accessFlags());
    }
}
