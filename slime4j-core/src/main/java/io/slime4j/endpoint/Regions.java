package io.slime4j.endpoint;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.ProtectionDomain;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Named memory: the regions registered on this endpoint and the peer's, as its
 * {@link EndpointInfo} described them. Every lookup checks the name, the bounds (without overflow)
 * and the access the operation needs, and says exactly what is wrong.
 */
final class Regions {
    private final String endpoint;
    private final ConcurrentHashMap<String, MemoryRegion[]> local = new ConcurrentHashMap<>();
    private volatile Map<String, RegionInfo> remote = Map.of();

    Regions(String endpoint) {
        this.endpoint = endpoint;
    }

    /** Registers {@code segment} on every rail's domain; returns rail 0's region. */
    MemoryRegion register(ProtectionDomain[] pds, String name, MemorySegment segment, int accessFlags) {
        if (name == null || name.isEmpty() || name.length() > 256) {
            throw new IllegalArgumentException("region name must have 1..256 characters, was " + name);
        }
        if (segment == null) {
            throw new IllegalArgumentException("segment must not be null");
        }
        if (local.containsKey(name)) {
            throw new IllegalArgumentException("endpoint " + endpoint + " already has a region named '" + name + "'");
        }
        int flags = AccessFlags.validate(accessFlags);
        MemoryRegion[] byRail = new MemoryRegion[pds.length];
        try {
            for (int r = 0; r < pds.length; r++) {
                byRail[r] = pds[r].register(segment, flags);
            }
        } catch (RuntimeException e) {
            closeAll(byRail);
            throw e;
        }
        if (local.putIfAbsent(name, byRail) != null) {
            closeAll(byRail);
            throw new IllegalArgumentException("endpoint " + endpoint + " already has a region named '" + name + "'");
        }
        return byRail[0];
    }

    private static void closeAll(MemoryRegion[] regions) {
        for (MemoryRegion mr : regions) {
            Transport.closeQuietly(mr);
        }
    }

    /** A local region (rail 0's registration), checked for bounds and for {@code needed} access flags. */
    MemoryRegion local(String name, long offset, long length, int needed, String use) {
        MemoryRegion[] byRail = name == null ? null : local.get(name);
        MemoryRegion mr = byRail == null ? null : byRail[0];
        if (mr == null) {
            throw new IllegalArgumentException("endpoint " + endpoint + " has no local region '" + name
                    + "' (registered: " + local.keySet() + ")");
        }
        check("local", name, mr.length(), mr.accessFlags(), offset, length, needed, use);
        return mr;
    }

    /** The registrations of a local region, by rail (the name was checked by {@link #local}). */
    MemoryRegion[] byRail(String name) {
        return local.get(name);
    }

    /** A peer region, checked for bounds and for {@code needed} access flags. */
    RegionInfo remote(String name, long offset, long length, int needed, String use) {
        RegionInfo r = name == null ? null : remote.get(name);
        if (r == null) {
            throw new IllegalArgumentException("endpoint " + endpoint + ": the peer has no region '" + name
                    + "' (known: " + remote.keySet() + "; regions registered after connect need updatePeer)");
        }
        check("remote", name, r.length(), r.accessFlags(), offset, length, needed, use);
        return r;
    }

    private void check(String side, String name, long size, int flags, long offset, long length, int needed,
                       String use) {
        if (offset < 0 || length < 0 || offset > size - length) {
            throw new IllegalArgumentException("endpoint " + endpoint + ": " + use + " of " + length + " bytes at offset "
                    + offset + " is past the end of " + side + " region '" + name + "' (" + size + " bytes)");
        }
        if ((flags & needed) != needed) {
            throw new IllegalArgumentException("endpoint " + endpoint + ": " + use + " needs " + AccessFlags.toString(needed)
                    + " on " + side + " region '" + name + "', which has " + AccessFlags.toString(flags));
        }
    }

    void peer(Map<String, RegionInfo> regions) {
        remote = Map.copyOf(regions);
    }

    Map<String, RegionInfo> describe() {
        Map<String, RegionInfo> out = new LinkedHashMap<>();
        local.forEach((name, byRail) -> out.put(name, RegionInfo.of(byRail)));
        return out;
    }

    void closeAll() {
        local.values().forEach(Regions::closeAll);
    }
}
