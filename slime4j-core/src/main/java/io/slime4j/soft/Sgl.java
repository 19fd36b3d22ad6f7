package io.slime4j.soft;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.WcStatus;

import java.lang.foreign.MemorySegment;

/** Scatter/gather helpers: resolving local keys and copying between packets and SGE lists. */
final class Sgl {
    private Sgl() {}

    /**
     * Resolves {@code n} local SGEs to segments and offsets, checking key, protection domain,
     * bounds and (when {@code needWrite}) LOCAL_WRITE.
     *
     * @return null when every entry is valid, else the local error status
     */
    static WcStatus resolve(KeyTable keys, SoftProtectionDomain pd, int n, long[] address, long[] length,
                            long[] key, boolean needWrite, KeyTable.Entry[] outEntry, long[] outOffset) {
        for (int i = 0; i < n; i++) {
            if (length[i] == 0) {
                outEntry[i] = null;
                outOffset[i] = 0;
                continue;
            }
            KeyTable.Entry e = keys.byLocalKey(key[i]);
            if (e == null || e.pd != pd || (needWrite && (e.access & AccessFlags.LOCAL_WRITE) == 0)) {
                return WcStatus.LOC_PROT_ERR;
            }
            long off = e.offsetOf(address[i], length[i]);
            if (off < 0) {
                return WcStatus.LOC_PROT_ERR;
            }
            outEntry[i] = e;
            outOffset[i] = off;
        }
        return null;
    }

    /**
     * The segment of a region resolved earlier, if it is still registered: a request keeps its
     * resolution across retransmissions and responses, and deregistration must still stop it.
     *
     * @throws IllegalStateException if the region was deregistered meanwhile (callers map it to a
     *                               protection error)
     */
    private static MemorySegment checked(KeyTable.Entry e) {
        if (!e.valid) {
            throw new IllegalStateException("region deregistered");
        }
        return e.segment;
    }

    /** Copies {@code len} bytes starting at message offset {@code msgOffset} of the SGE list into {@code dst}. */
    static void gather(int n, KeyTable.Entry[] seg, long[] off, long[] length, long msgOffset,
                       MemorySegment dst, long dstOffset, long len) {
        copy(n, seg, off, length, msgOffset, dst, dstOffset, len, false);
    }

    /** Copies {@code len} bytes of {@code src} into the SGE list at message offset {@code msgOffset}. */
    static void scatter(MemorySegment src, long srcOffset, long len, int n, KeyTable.Entry[] seg, long[] off,
                        long[] length, long msgOffset) {
        copy(n, seg, off, length, msgOffset, src, srcOffset, len, true);
    }

    /** Walks the SGE list from message offset {@code msgOffset}, copying to it or from it. */
    private static void copy(int n, KeyTable.Entry[] seg, long[] off, long[] length, long msgOffset,
                             MemorySegment other, long otherOffset, long len, boolean intoSgl) {
        int i = 0;
        long skip = msgOffset;
        while (i < n && skip >= length[i]) {
            skip -= length[i];
            i++;
        }
        while (len > 0 && i < n) {
            long chunk = Math.min(len, length[i] - skip);
            if (intoSgl) {
                MemorySegment.copy(other, otherOffset, checked(seg[i]), off[i] + skip, chunk);
            } else {
                MemorySegment.copy(checked(seg[i]), off[i] + skip, other, otherOffset, chunk);
            }
            otherOffset += chunk;
            len -= chunk;
            skip = 0;
            i++;
        }
    }
}
