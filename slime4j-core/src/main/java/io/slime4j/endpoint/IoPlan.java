package io.slime4j.endpoint;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.MemoryRegion;
import java.util.List;

/**
 * A one-sided batch resolved into work requests before anything is created or posted: every name,
 * bound and access flag is checked here, so misuse fails at the call. Assignments longer than
 * {@link EndpointConfig#maxRequestBytes()} become several requests; zero-length ones none. Each
 * request's io queue pair comes from the {@link QpRouter}.
 */
final class IoPlan {
    final int count;
    final int[] qp;
    final long[] localAddress;
    final long[] localKey;
    final long[] remoteAddress;
    final long[] remoteKey;
    final int[] length;
    long totalBytes;
    /** Whether every request goes to one queue pair (so an immediate can ride on the last one). */
    boolean singleQp;
    /** Queue pair of a separate immediate request. */
    int immQp;
    /** Target of a separate, zero-length immediate request. */
    long immAddress;
    long immKey;

    private IoPlan(int count) {
        this.count = count;
        qp = new int[count];
        localAddress = new long[count];
        localKey = new long[count];
        remoteAddress = new long[count];
        remoteKey = new long[count];
        length = new int[count];
    }

    static IoPlan of(OpKind kind, List<Assignment> batch, Regions regions, QpRouter router, int maxRequestBytes) {
        if (batch == null) {
            throw new IllegalArgumentException("batch must not be null");
        }
        boolean read = kind == OpKind.READ;
        int localNeed = read ? AccessFlags.LOCAL_WRITE : 0;
        int remoteNeed = read ? AccessFlags.REMOTE_READ : AccessFlags.REMOTE_WRITE;
        String use = kind.name().toLowerCase();
        long requests = 0;
        MemoryRegion[] locals = new MemoryRegion[batch.size()];
        RegionInfo[] remotes = new RegionInfo[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            Assignment a = batch.get(i);
            if (a == null) {
                throw new IllegalArgumentException("assignment " + i + " of the batch is null");
            }
            locals[i] = regions.local(a.localRegion(), a.localOffset(), a.length(), localNeed, use);
            remotes[i] = regions.remote(a.remoteRegion(), a.remoteOffset(), a.length(), remoteNeed, use);
            requests += (a.length() + maxRequestBytes - 1) / maxRequestBytes;
        }
        if (requests > Integer.MAX_VALUE - 1) {
            throw new IllegalArgumentException("batch needs " + requests + " work requests; split it");
        }
        IoPlan p = new IoPlan((int) requests);
        int r = 0;
        long total = 0;
        int firstQp = -1;
        boolean single = true;
        for (int i = 0; i < batch.size(); i++) {
            Assignment a = batch.get(i);
            for (long done = 0; done < a.length(); done += maxRequestBytes) {
                int len = (int) Math.min(maxRequestBytes, a.length() - done);
                int q = router.select(kind, len);
                p.qp[r] = q;
                p.localAddress[r] = locals[i].address() + a.localOffset() + done;
                p.localKey[r] = locals[i].localKey();
                p.remoteAddress[r] = remotes[i].address() + a.remoteOffset() + done;
                p.remoteKey[r] = remotes[i].remoteKey();
                p.length[r] = len;
                firstQp = firstQp < 0 ? q : firstQp;
                single &= q == firstQp;
                total += len;
                r++;
            }
        }
        p.totalBytes = total;
        p.singleQp = p.count > 0 && single;
        p.immQp = p.singleQp ? firstQp : router.select(kind, 0);
        p.immAddress = batch.isEmpty() ? 0 : remotes[0].address() + batch.getFirst().remoteOffset();
        p.immKey = batch.isEmpty() ? 0 : remotes[0].remoteKey();
        return p;
    }
}
