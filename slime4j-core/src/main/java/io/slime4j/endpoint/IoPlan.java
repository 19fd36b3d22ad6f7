package io.slime4j.endpoint;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A one-sided batch resolved into work requests before anything is created or posted: every name,
 * bound and access flag is checked first, so misuse fails at the call; only then is anything
 * routed. Each assignment is cut into the stripes its {@link QpSelector} asks for
 * ({@link QpSelector#stripeBytes}), each stripe into requests of at most
 * the request size ({@link EndpointConfig#maxRequestBytes()}, by default the rails'
 * {@link io.slime4j.verbs.VerbsDevice#preferredRequestBytes()}; zero-length assignments give none). A stripe of one
 * request is routed as {@link QpOpType#READ} or {@link QpOpType#WRITE}; the requests of a longer
 * stripe are its segments, {@link QpOpType#SAR_FIRST} to {@link QpOpType#SAR_LAST}, routed in order
 * under one message id. Keys are those of the chosen lane's rail.
 *
 * <p>A stripe of at least one packet is rounded up to whole packets (the unit's last stripe takes
 * the rest), so striping adds no partial packet of its own: a 1 MiB write over 4 lanes at a
 * 60 KiB MTU is 18 packets, as it is on one lane, not 20. (A stripe longer than
 * {@code maxRequestBytes} is still cut into requests of that size, which need not be whole packets.)
 *
 * <p>A plan is reused: its arrays only grow, and it goes back to its {@link IoPlanPool} when its op
 * settles (no request of it can then be re-issued or completed), so a one-request write plans
 * without allocating. It also carries the op's posting state ({@link #batch}) and the op's use of
 * its local regions ({@link #use}). Filled by one caller thread; read-only after posting.
 */
final class IoPlan {
    /** Each kind's name as error messages use it (made once: not a string per operation, and locale-proof). */
    private static final String[] USE = Arrays.stream(OpKind.values())
            .map(k -> k.name().toLowerCase(Locale.ROOT)).toArray(String[]::new);

    /** A plan whose arrays grew beyond this many requests or assignments is not pooled again. */
    static final int MAX_POOLED_REQUESTS = 1024;

    int count;
    /** The lane of each request. */
    int[] qp = new int[1];
    long[] localAddress = new long[1];
    long[] localKey = new long[1];
    long[] remoteAddress = new long[1];
    long[] remoteKey = new long[1];
    int[] length = new int[1];
    /** The assignment each request belongs to (to find its keys on another rail when it is re-issued). */
    int[] unit = new int[1];
    /** The local regions the batch uses, each once (the op uses them until it settles): the first {@link #localNameCount}. */
    String[] localNames = new String[1];
    int localNameCount;
    /** For each queue pair, the index of the last request on it (-1: none). */
    int[] lastOnQp;
    /** For each request, the index of the next request on the same queue pair ({@link #count}: none). */
    int[] nextOnQp = new int[1];
    private int[] seen;
    private MemoryRegion[][] locals = new MemoryRegion[1][];
    private RegionInfo[] remotes = new RegionInfo[1];
    private MemoryRegion[] checked = new MemoryRegion[1];
    private long[] stripes = new long[1];
    private final Transport transport;
    private final IoPlanPool pool;
    /** The op's posting state, reset for each op. */
    final IoBatch batch = new IoBatch();
    /** The op's use of its local regions, refilled for each op. */
    final Regions.Use use = new Regions.Use();
    long totalBytes;
    /** Whether every request goes to one queue pair (so an immediate can ride on the last one). */
    boolean singleQp;
    /** Queue pair of a separate immediate request. */
    int immQp;
    /** The rail every request (and a separate immediate) goes to, or -1 for several or none ({@link OpState#rail}). */
    int rail;
    /** Target of a separate, zero-length immediate request. */
    long immAddress;
    long immKey;

    IoPlan(Transport transport, int qps, IoPlanPool pool) {
        this.transport = transport;
        this.pool = pool;
        this.lastOnQp = new int[qps];
        this.seen = new int[qps];
    }

    /** Back to the pool (its op settled); nothing may use it afterwards. */
    void recycle() {
        Arrays.fill(locals, 0, Math.min(locals.length, unitsUsed), null);
        Arrays.fill(remotes, 0, Math.min(remotes.length, unitsUsed), null);
        Arrays.fill(checked, 0, Math.min(checked.length, unitsUsed), null);
        Arrays.fill(localNames, 0, localNameCount, null);
        batch.op = null;
        batch.fence = null;
        use.clear();
        if (pool != null && qp.length <= MAX_POOLED_REQUESTS && locals.length <= MAX_POOLED_REQUESTS) {
            pool.give(this); // a plan grown by a huge batch is left to the collector, not kept
        }
    }

    private int unitsUsed;

    /** {@code bytes} rounded up to whole packets, when it is at least one packet. */
    static long roundUp(long bytes, int packetBytes) {
        return bytes < packetBytes ? bytes : (bytes + packetBytes - 1) / packetBytes * packetBytes;
    }

    private void ensureUnits(int units) {
        if (locals.length < units) {
            locals = new MemoryRegion[units][];
            remotes = new RegionInfo[units];
            checked = new MemoryRegion[units];
            stripes = new long[units];
            localNames = new String[units];
        }
        unitsUsed = units;
    }

    private void ensureRequests(int n) {
        if (qp.length < n) {
            qp = new int[n];
            localAddress = new long[n];
            localKey = new long[n];
            remoteAddress = new long[n];
            remoteKey = new long[n];
            length = new int[n];
            unit = new int[n];
            nextOnQp = new int[n];
        }
        count = n;
    }

    /** Plans {@code batch}: checks every assignment, then cuts and routes it (see the class comment). */
    IoPlan fill(OpKind kind, List<Assignment> batch, Regions regions, Router router, int maxRequestBytes,
                int packetBytes) {
        if (batch == null) {
            throw new IllegalArgumentException("batch must not be null");
        }
        boolean read = kind == OpKind.READ;
        QpOpType whole = read ? QpOpType.READ : QpOpType.WRITE;
        int localNeed = read ? AccessFlags.LOCAL_WRITE : 0;
        int remoteNeed = read ? AccessFlags.REMOTE_READ : AccessFlags.REMOTE_WRITE;
        String use = USE[kind.ordinal()];
        QpSelector selector = router.selector();
        int lanes = router.qps();
        int units = batch.size();
        ensureUnits(units);
        long requests = 0;
        for (int i = 0; i < units; i++) {
            Assignment a = batch.get(i);
            if (a == null) {
                throw new IllegalArgumentException("assignment " + i + " of the batch is null");
            }
            checked[i] = regions.local(a.localRegion(), a.localOffset(), a.length(), localNeed, use);
            remotes[i] = regions.remote(a.remoteRegion(), a.remoteOffset(), a.length(), remoteNeed, use);
        }
        for (int i = 0; i < units; i++) {
            long len = batch.get(i).length();
            long s = len == 0 ? 1 : selector.stripeBytes(whole, len, lanes);
            if (s <= 0 || s > len) {
                s = Math.max(1, len); // a selector answering nonsense gets no striping
            } else if (s < len) {
                s = Math.min(len, roundUp(s, packetBytes));
            }
            stripes[i] = s;
            long full = len / s;
            long rest = len % s;
            requests += full * ((s + maxRequestBytes - 1) / maxRequestBytes) + (rest + maxRequestBytes - 1) / maxRequestBytes;
        }
        if (requests > Integer.MAX_VALUE - 1) {
            throw new IllegalArgumentException("batch needs " + requests + " work requests; split it");
        }
        ensureRequests((int) requests);
        distinctLocalNames(batch);
        int r = 0;
        long total = 0;
        int firstQp = -1;
        boolean single = true;
        for (int i = 0; i < units; i++) {
            Assignment a = batch.get(i);
            locals[i] = regions.byRail(a.localRegion());
            for (long stripeAt = 0; stripeAt < a.length(); stripeAt += stripes[i]) {
                long stripeLen = Math.min(stripes[i], a.length() - stripeAt);
                long segments = (stripeLen + maxRequestBytes - 1) / maxRequestBytes;
                long messageId = router.newMessageId();
                for (long k = 0; k < segments; k++) {
                    long done = stripeAt + k * maxRequestBytes;
                    int len = (int) Math.min(maxRequestBytes, stripeAt + stripeLen - done);
                    QpOpType type = segments == 1 ? whole
                            : k == 0 ? QpOpType.SAR_FIRST : k == segments - 1 ? QpOpType.SAR_LAST : QpOpType.SAR_MIDDLE;
                    int q = router.select(type, messageId);
                    qp[r] = q;
                    unit[r] = i;
                    localAddress[r] = checked[i].address() + a.localOffset() + done;
                    remoteAddress[r] = remotes[i].address() + a.remoteOffset() + done;
                    localKey[r] = localKeyOn(r, q);
                    remoteKey[r] = remoteKeyOn(r, q);
                    length[r] = len;
                    firstQp = firstQp < 0 ? q : firstQp;
                    single &= q == firstQp;
                    total += len;
                    r++;
                }
            }
        }
        totalBytes = total;
        singleQp = count > 0 && single;
        immQp = singleQp ? firstQp : kind == OpKind.WRITE_WITH_IMM
                ? router.select(QpOpType.EAGER, router.newMessageId()) : 0;
        immAddress = batch.isEmpty() ? 0 : remotes[0].address() + batch.getFirst().remoteOffset();
        immKey = units == 0 ? 0 : immKey(immQp);
        layOut();
        rail = railOf(kind == OpKind.WRITE_WITH_IMM);
        return this;
    }

    /** Each queue pair's last request, and each request's next one on the same queue pair. */
    private void layOut() {
        Arrays.fill(lastOnQp, -1);
        Arrays.fill(seen, count);
        for (int r = count - 1; r >= 0; r--) {
            int q = qp[r];
            if (lastOnQp[q] < 0) {
                lastOnQp[q] = r;
            }
            nextOnQp[r] = seen[q];
            seen[q] = r;
        }
    }

    /** The one rail of every request (and of the separate immediate, {@code withImm}), or -1. */
    private int railOf(boolean withImm) {
        int one = withImm ? transport.laneRail[immQp] : count > 0 ? transport.laneRail[qp[0]] : -1;
        for (int r = 0; r < count; r++) {
            if (transport.laneRail[qp[r]] != one) {
                return -1;
            }
        }
        return one;
    }

    /** The local region names of a batch, each once, in first-use order, into {@link #localNames}. */
    private void distinctLocalNames(List<Assignment> batch) {
        int n = 0;
        outer:
        for (int k = 0; k < batch.size(); k++) {
            String name = batch.get(k).localRegion();
            for (int i = 0; i < n; i++) {
                if (localNames[i].equals(name)) {
                    continue outer;
                }
            }
            localNames[n++] = name;
            if (n > 8 && batch.size() > 64) { // a large batch over many regions: no quadratic scan
                String[] all = batch.stream().map(Assignment::localRegion).distinct().toArray(String[]::new);
                System.arraycopy(all, 0, localNames, 0, all.length);
                n = all.length;
                break;
            }
        }
        localNameCount = n;
    }

    /** The local key of request {@code r}'s memory on the rail of {@code lane}. */
    long localKeyOn(int r, int lane) {
        return locals[unit[r]][transport.laneRail[lane]].localKey();
    }

    /** The peer's key of request {@code r}'s memory on the rail of {@code lane}. */
    long remoteKeyOn(int r, int lane) {
        return remotes[unit[r]].remoteKey(transport.laneRail[lane]);
    }

    /** The key for a lone immediate on {@code lane} (0 for an empty batch: nothing is written). */
    long immKey(int lane) {
        return unitsUsed == 0 ? 0 : remotes[0].remoteKey(transport.laneRail[lane]);
    }
}
