package io.slime4j.endpoint;

import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A window of receives kept posted on one queue pair (invariant I5): pre-posted at connect, each
 * entry re-posted by the dispatch thread as soon as its completion is dispatched — before the
 * completion is acted on, so before any slot it concerns is released. Entries are transport-owned,
 * not slots: no op leases them. An entry's wrId is {@code (kind, qp index, entry)}.
 *
 * <p>Meta entries own a 32-byte buffer in the control region (a SEND lands there); data entries own
 * a bounce buffer of the eager threshold when eager messages are on (an eager SEND lands there,
 * {@link EagerPath}; a rendezvous RDMA_WRITE_WITH_IMM only consumes the receive), none when off;
 * imm-recv entries have no buffer.
 */
final class RecvWindow {
    /** What the window receives. */
    enum Kind {
        /** Rendezvous meta messages and credit returns (meta queue pair). */
        META(WrIds.META_WINDOW),
        /** Message data arrivals (data queue pair). */
        DATA(WrIds.DATA_WINDOW),
        /** The peer's write-with-imm (each io queue pair). */
        IMM(WrIds.IMM_WINDOW);

        final int wrKind;

        Kind(int wrKind) {
            this.wrKind = wrKind;
        }
    }

    final Kind kind;
    final int qpIndex;
    final int size;
    private final QueuePair qp;
    private final MemoryRegion buffer;
    private final long base;
    private final int entryBytes;
    private final WorkRequest wr = new WorkRequest();
    private final AtomicInteger posted = new AtomicInteger();
    /** Each entry's buffer, sliced at its first use and kept: an arrival allocates no segment. */
    private final MemorySegment[] entries;

    RecvWindow(Kind kind, int qpIndex, QueuePair qp, int size, MemoryRegion buffer, long base) {
        this(kind, qpIndex, qp, size, buffer, base, Wire32.META_BYTES);
    }

    /** A window whose entries own {@code entryBytes} each of {@code buffer} from {@code base} on (none if null). */
    RecvWindow(Kind kind, int qpIndex, QueuePair qp, int size, MemoryRegion buffer, long base, int entryBytes) {
        this.entryBytes = entryBytes;
        this.kind = kind;
        this.qpIndex = qpIndex;
        this.qp = qp;
        this.size = size;
        this.buffer = buffer;
        this.base = base;
        this.entries = new MemorySegment[buffer == null ? 0 : size];
        for (int e = 0; e < entries.length; e++) { // sliced once here, not on the path of every arrival
            entries[e] = buffer.segment().asSlice(base + (long) e * entryBytes, entryBytes);
        }
    }

    /** Posts entries 0..n-1 (at connect, before the queue pair can receive anything). */
    void prePost(int n) {
        for (int e = 0; e < n; e++) {
            post(e);
        }
    }

    /** (Re-)posts one entry. */
    synchronized void post(int entry) {
        wr.clear().wrId(WrIds.encode(kind.wrKind, qpIndex, entry, 0, 0));
        if (buffer != null) {
            wr.sge(buffer, base + (long) entry * entryBytes, entryBytes);
        }
        qp.postRecv(wr);
        posted.incrementAndGet();
    }

    /** A completion of one of this window's entries was dispatched: it is no longer posted. */
    void consumed() {
        posted.decrementAndGet();
    }

    /** The queue pair number the window's receives are posted on. */
    int qpn() {
        return qp.qpn();
    }

    /** Entries currently posted (as far as dispatched completions tell). */
    int posted() {
        return posted.get();
    }

    /** The buffer of an entry (a meta entry, or a data entry's bounce buffer). */
    MemorySegment entry(int entry) {
        return entries[entry];
    }
}
