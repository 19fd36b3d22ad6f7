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
 * {@link EndpointConfig#maxRequestBytes()} (zero-length assignments give none). A stripe of one
 * request is routed as {@link QpOpType#READ} or {@link QpOpType#WRITE}; the requests of a longer
 * stripe are its segments, {@link QpOpType#SAR_FIRST} to {@link QpOpType#SAR_LAST}, routed in order
 * under one message id. Keys are those of the chosen lane's rail.
 *
 * <p>A stripe of at least one packet is rounded up to whole packets (the unit's last stripe takes
 * the rest), so striping adds no partial packet of its own: a 1 MiB write over 4 lanes at a
 * 60 KiB MTU is 18 packets, as it is on one lane, not 20. (A stripe longer than
 * {@code maxRequestBytes} is still cut into requests of that size, which need not be whole packets.)
 */
final class IoPlan {
    /** Each kind's name as error messages use it (made once: not a string per operation, and locale-proof). */
    private static final String[] USE = Arrays.stream(OpKind.values())
            .map(k -> k.name().toLowerCase(Locale.ROOT)).toArray(String[]::new);

    final int count;
    /** The lane of each request. */
    final int[] qp;
    final long[] localAddress;
    final long[] localKey;
    final long[] remoteAddress;
    final long[] remoteKey;
    final int[] length;
    /** The local regions the batch uses, each once (the op uses them until it settles). */
    final String[] localNames;
    /** The assignment each request belongs to (to find its keys on another rail when it is re-issued). */
    final int[] unit;
    private final MemoryRegion[][] locals;
    private final RegionInfo[] remotes;
    private final Transport transport;
    long totalBytes;
    /** Whether every request goes to one queue pair (so an immediate can ride on the last one). */
    boolean singleQp;
    /** Queue pair of a separate immediate request. */
    int immQp;
    /** Target of a separate, zero-length immediate request. */
    long immAddress;
    long immKey;

    private IoPlan(int count, int units, Transport transport, String[] localNames) {
        this.count = count;
        this.localNames = localNames;
        this.transport = transport;
        qp = new int[count];
        localAddress = new long[count];
        localKey = new long[count];
        remoteAddress = new long[count];
        remoteKey = new long[count];
        length = new int[count];
        unit = new int[count];
        locals = new MemoryRegion[units][];
        remotes = new RegionInfo[units];
    }

    /** {@code bytes} rounded up to whole packets, when it is at least one packet. */
    static long roundUp(long bytes, int packetBytes) {
        return bytes < packetBytes ? bytes : (bytes + packetBytes - 1) / packetBytes * packetBytes;
    }

    static IoPlan of(OpKind kind, List<Assignment> batch, Regions regions, Router router, Transport transport,
                     int maxRequestBytes, int packetBytes) {
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
        long requests = 0;
        long[] stripes = new long[batch.size()];
        MemoryRegion[] checked = new MemoryRegion[batch.size()];
        RegionInfo[] remote = new RegionInfo[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            Assignment a = batch.get(i);
            if (a == null) {
                throw new IllegalArgumentException("assignment " + i + " of the batch is null");
            }
            checked[i] = regions.local(a.localRegion(), a.localOffset(), a.length(), localNeed, use);
            remote[i] = regions.remote(a.remoteRegion(), a.remoteOffset(), a.length(), remoteNeed, use);
        }
        for (int i = 0; i < batch.size(); i++) {
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
        IoPlan p = new IoPlan((int) requests, batch.size(), transport, distinctLocalNames(batch));
        int r = 0;
        long total = 0;
        int firstQp = -1;
        boolean single = true;
        for (int i = 0; i < batch.size(); i++) {
            Assignment a = batch.get(i);
            p.locals[i] = regions.byRail(a.localRegion());
            p.remotes[i] = remote[i];
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
                    p.qp[r] = q;
                    p.unit[r] = i;
                    p.localAddress[r] = checked[i].address() + a.localOffset() + done;
                    p.remoteAddress[r] = remote[i].address() + a.remoteOffset() + done;
                    p.localKey[r] = p.localKeyOn(r, q);
                    p.remoteKey[r] = p.remoteKeyOn(r, q);
                    p.length[r] = len;
                    firstQp = firstQp < 0 ? q : firstQp;
                    single &= q == firstQp;
                    total += len;
                    r++;
                }
            }
        }
        p.totalBytes = total;
        p.singleQp = p.count > 0 && single;
        p.immQp = p.singleQp ? firstQp : kind == OpKind.WRITE_WITH_IMM
                ? router.select(QpOpType.EAGER, router.newMessageId()) : 0;
        p.immAddress = batch.isEmpty() ? 0 : remote[0].address() + batch.getFirst().remoteOffset();
        p.immKey = p.immKey(p.immQp);
        return p;
    }

    /** The local region names of a batch, each once, in first-use order. */
    private static String[] distinctLocalNames(List<Assignment> batch) {
        String[] names = new String[batch.size()];
        int n = 0;
        outer:
        for (Assignment a : batch) {
            String name = a.localRegion();
            for (int i = 0; i < n; i++) {
                if (names[i].equals(name)) {
                    continue outer;
                }
            }
            names[n++] = name;
            if (n > 8 && batch.size() > 64) { // a large batch over many regions: no quadratic scan
                return batch.stream().map(Assignment::localRegion).distinct().toArray(String[]::new);
            }
        }
        return n == names.length ? names : java.util.Arrays.copyOf(names, n);
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
        return remotes.length == 0 ? 0 : remotes[0].remoteKey(transport.laneRail[lane]);
    }
}
