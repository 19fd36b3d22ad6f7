package io.slime4j.endpoint;

import java.util.ArrayList;
import java.util.List;
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
 * @param railKeys    the remote keys of the same memory on rails 1, 2, ... of a multi-rail endpoint
 *                    (each rail is a device with its own keys); empty for one rail
 */
public record RegionInfo(long address, long length, long remoteKey, int accessFlags, List<Long> railKeys) {
    /** Validates the length and the flags. */
    public RegionInfo {
        if (length < 0) {
            throw new IllegalArgumentException("region length must not be negative, was " + length);
        }
        AccessFlags.validate(accessFlags);
        railKeys = railKeys == null ? List.of() : List.copyOf(railKeys);
    }

    /** A region of a one-rail endpoint. */
    public RegionInfo(long address, long length, long remoteKey, int accessFlags) {
        this(address, length, remoteKey, accessFlags, List.of());
    }

    /**
     * The remote key on rail {@code rail}.
     *
     * @throws IllegalArgumentException if the peer described fewer rails
     */
    public long remoteKey(int rail) {
        if (rail == 0) {
            return remoteKey;
        }
        if (rail < 0 || rail > railKeys.size()) {
            throw new IllegalArgumentException("region has keys for " + (railKeys.size() + 1) + " rails, not rail " + rail);
        }
        return railKeys.get(rail - 1);
    }

    /** Describes a local region registered on every rail (index = rail). */
    static RegionInfo of(MemoryRegion[] byRail) {
        List<Long> keys = new ArrayList<>(byRail.length - 1);
        for (int r = 1; r < byRail.length; r++) {
            keys.add(byRail[r].remoteKey());
        }
        MemoryRegion m = byRail[0];
        return new RegionInfo(m.address(), m.length(), m.remoteKey(), m.accessFlags(), keys);
    }

    /** Describes a local region. */
    public static RegionInfo of(MemoryRegion region) {
        return new RegionInfo(region.address(), region.length(), region.remoteKey(), region.accessFlags());
    }
}
