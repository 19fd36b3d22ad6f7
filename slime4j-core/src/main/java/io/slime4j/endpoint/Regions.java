package io.slime4j.endpoint;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.WcStatus;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Named memory: the regions registered on this endpoint and the peer's, as its
 * {@link EndpointInfo} described them. Every lookup checks the name, the bounds (without overflow)
 * and the access the operation needs, and says exactly what is wrong.
 *
 * <p>Each local region knows the ops using it ({@link #use}, until they settle), so that
 * {@link #deregister} can wait for them (bounded) before it invalidates the region's keys on every
 * rail; an op that starts using a region being deregistered is refused.
 */
final class Regions {
    private static final Local[] NO_LOCALS = new Local[0];

    /**
     * A local region: its registration on each rail and how many unsettled ops use it. It is also
     * the {@link Use} of an op that uses this region alone (a send or a recv), so such an op's use
     * costs no object.
     */
    private static final class Local extends Use {
        final MemoryRegion[] byRail;
        final AtomicInteger users = new AtomicInteger();
        volatile boolean leaving;

        Local(MemoryRegion[] byRail) {
            super(NO_LOCALS);
            this.byRail = byRail;
        }

        @Override
        boolean includes(Object region) {
            return region == this;
        }

        /** One op that used this region alone settled. */
        @Override
        public void run() {
            users.decrementAndGet();
        }

        @Override
        void clear() {
            throw new IllegalStateException("a region's own use is never refilled");
        }
    }

    /**
     * The local regions one op uses, until it settles ({@link OpState#partDone} runs it then). Holds
     * no op: a region counts its users, and {@link #deregister} finds the ones to fail in the
     * in-flight registry (I4: nothing but a future, a lease or a running completion keeps an op alive).
     */
    static class Use implements Runnable {
        private Local[] locals;
        private int count;

        /** An empty use, to be filled by {@link Regions#use(OpState, String[], int, Use)} (and reused after it ran). */
        Use() {
            this.locals = new Local[1];
        }

        private Use(Local[] locals) {
            this.locals = locals;
            this.count = locals.length;
        }

        /**
         * Whether the op uses {@code region}. {@code deregister} asks without a lock, and a pooled
         * use may be refilled for another op meanwhile: the array and its count are read once, and
         * the count is capped at the array's length, so a refill never reads past it.
         */
        boolean includes(Object region) {
            Local[] ls = locals;
            int n = Math.min(count, ls.length);
            for (int i = 0; i < n; i++) {
                if (ls[i] == region) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void run() {
            for (int i = 0; i < count; i++) {
                locals[i].users.decrementAndGet();
            }
        }

        /** Forgets the regions (before reuse). */
        void clear() {
            java.util.Arrays.fill(locals, 0, count, null);
            count = 0;
        }
    }

    private final String endpoint;
    private final ConcurrentHashMap<String, Local> local = new ConcurrentHashMap<>();
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
        if (local.putIfAbsent(name, new Local(byRail)) != null) {
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
        Local l = name == null ? null : local.get(name);
        MemoryRegion mr = l == null || l.leaving ? null : l.byRail[0];
        if (mr == null) {
            throw new IllegalArgumentException("endpoint " + endpoint + " has no local region '" + name
                    + "' (registered: " + local.keySet() + ")");
        }
        check("local", name, mr.length(), mr.accessFlags(), offset, length, needed, use);
        return mr;
    }

    /** The registrations of a local region, by rail (the name was checked by {@link #local}). */
    MemoryRegion[] byRail(String name) {
        Local l = local.get(name);
        if (l == null) {
            throw new IllegalArgumentException("endpoint " + endpoint + ": local region '" + name
                    + "' was deregistered meanwhile");
        }
        return l.byRail;
    }

    /**
     * Records that {@code op} uses the local regions {@code names} until it settles.
     *
     * @throws IllegalArgumentException if one of them is gone or being deregistered (nothing is recorded)
     */
    void use(OpState op, String... names) {
        Local[] ls = new Local[names.length];
        take(names, names.length, ls);
        op.use(new Use(ls));
    }

    /** As {@link #use(OpState, String...)} for one region, which is then the op's use itself (no allocation). */
    void use(OpState op, String name) {
        op.use(takeOne(name));
    }

    /**
     * As {@link #use(OpState, String...)} for the first {@code count} of {@code names}, recording them
     * in {@code into} (emptied and refilled, its array grown when needed) instead of a new object.
     */
    void use(OpState op, String[] names, int count, Use into) {
        into.clear();
        if (into.locals.length < count) {
            into.locals = new Local[count];
        }
        take(names, count, into.locals);
        into.count = count;
        op.use(into);
    }

    /** Counts a user on each of the first {@code count} regions named, into {@code ls}; all or none. */
    private void take(String[] names, int count, Local[] ls) {
        int done = 0;
        try {
            for (; done < count; done++) {
                ls[done] = takeOne(names[done]);
            }
        } catch (IllegalArgumentException e) {
            for (int i = 0; i < done; i++) {
                ls[i].users.decrementAndGet();
                ls[i] = null;
            }
            throw e;
        }
    }

    /** Counts a user on region {@code name}; none if it is gone or being deregistered (then it throws). */
    private Local takeOne(String name) {
        Local l = local.get(name);
        if (l == null) {
            throw new IllegalArgumentException("endpoint " + endpoint + ": local region '" + name + "' was deregistered");
        }
        l.users.incrementAndGet();
        if (l.leaving) { // deregister set the flag before looking at the count: one of us sees the other
            l.users.decrementAndGet();
            throw new IllegalArgumentException("endpoint " + endpoint + ": local region '" + name
                    + "' is being deregistered");
        }
        return l;
    }

    /**
     * Deregisters local region {@code name}: refuses new ops on it, waits up to {@code waitNanos}
     * for the ops using it to settle, fails those of {@code live} (the in-flight registry) still using
     * it (they complete FAILED with LOC_PROT_ERR), then closes its registration on every rail — from then on the peer's accesses
     * with its keys fail with REM_ACCESS_ERR — and forgets the name. Returns how many ops were still
     * using it at the bound.
     *
     * @throws IllegalArgumentException if there is no such region
     */
    int deregister(String name, long waitNanos, Supplier<List<OpState>> live) throws InterruptedException {
        Local l = name == null ? null : local.get(name);
        if (l == null) {
            throw new IllegalArgumentException("endpoint " + endpoint + " has no local region '" + name
                    + "' (registered: " + local.keySet() + ")");
        }
        l.leaving = true; // a second call (after an interrupted one) waits again and finishes
        long deadline = System.nanoTime() + waitNanos;
        while (l.users.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        int left = 0;
        for (OpState op : l.users.get() > 0 ? live.get() : List.<OpState>of()) {
            Use u = op.use();
            if (u != null && u.includes(l) && op.failNow(WcStatus.LOC_PROT_ERR, "endpoint " + endpoint + ": local region '" + name
                    + "' was deregistered while this op was using it")) {
                left++;
            }
        }
        closeAll(l.byRail);
        local.remove(name, l);
        return left;
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
        local.forEach((name, l) -> {
            if (!l.leaving) {
                out.put(name, RegionInfo.of(l.byRail));
            }
        });
        return out;
    }

    void closeAll() {
        local.values().forEach(l -> closeAll(l.byRail));
    }
}
