package io.slime4j.endpoint;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;

/**
 * The receiving side's matching of eager arrivals with recvs by message sequence number (the k-th
 * recv takes message k: the pair-ordering contract), and the messages that arrived before their
 * recv ("unexpected"), held until it is posted.
 *
 * <p>{@link #post} numbers each recv and either hands it the arrival held for its number or records
 * it as pending; {@link #arrive} gives an arrival its pending recv or holds it. Both under one lock,
 * so an arrival and the recv it belongs to always meet, whichever comes first. A held message is
 * copied out of its bounce buffer (so the receive is re-posted at once, I5) into a heap array of at
 * most the eager threshold; how many are held is bounded by the sender's eager credits
 * ({@link EagerCredits}: a held message keeps its credit). A notice (a rendezvous send waiting for
 * this message's meta) leaves its recv pending: the recv still waits for the data.
 *
 * <p>Sequence numbers are compared modulo 2^28 ({@link Wire32#SEQ_MASK}): an arrival for a number
 * not yet posted is one of the next 2^27.
 */
final class Unexpected {
    /** An arrival held for a recv not posted yet: its kind ({@link Wire32#EAGER_DATA}, ...) and bytes. */
    record Held(int kind, byte[] data) {}

    /**
     * What {@link #arrive} returns for a notice that came after its recv was answered (its send found
     * the meta while the notice was already on its way): nothing to do but return its credit.
     */
    static final Slot STALE = new Slot(-1, 0, 0);

    private static final byte[] NONE = new byte[0];
    /**
     * Pending recvs and held arrivals by sequence number: a ring each, indexed by the number's low
     * bits, so that matching a message allocates nothing; a number whose place is taken by another
     * (more than the ring's span apart: not with an honest peer and in-order arrivals) goes to the
     * overflow map instead.
     */
    private final Slot[] pendingRing;
    private final Held[] heldRing;
    private final int[] heldSeq;
    private final int mask;
    private final HashMap<Integer, Slot> pendingOverflow = new HashMap<>();
    private final HashMap<Integer, Held> heldOverflow = new HashMap<>();
    private int pendingCount;
    private int heldCount;
    private final int limit;
    private int nextRecv;
    private long heldTotal;

    /**
     * {@code limit}: at most this many arrivals held — this side's eager window, which bounds what an
     * honest peer can have outstanding; one more is bad network input ({@link #arrive} refuses it).
     * The rings cover twice the larger of {@code limit} and {@code slots} (the recv slots, which
     * bound the pending recvs).
     */
    Unexpected(int limit, int slots) {
        this.limit = limit;
        int span = 2 * Math.max(2, Math.max(limit, slots));
        int n = Integer.highestOneBit(span - 1) << 1;
        this.mask = n - 1;
        this.pendingRing = new Slot[n];
        this.heldRing = new Held[n];
        this.heldSeq = new int[n];
    }

    /** As {@link #Unexpected(int, int)} with rings sized by {@code limit} alone. */
    Unexpected(int limit) {
        this(limit, limit);
    }

    private void putPending(int k, Slot s) {
        int i = k & mask;
        if (pendingRing[i] == null) {
            pendingRing[i] = s;
        } else {
            pendingOverflow.put(k, s);
        }
        pendingCount++;
    }

    private Slot pendingFor(int k, boolean remove) {
        int i = k & mask;
        Slot s = pendingRing[i];
        if (s != null && s.msgSeq == k) {
            if (remove) {
                pendingRing[i] = null;
                pendingCount--;
            }
            return s;
        }
        if (pendingOverflow.isEmpty()) {
            return null;
        }
        s = remove ? pendingOverflow.remove(k) : pendingOverflow.get(k);
        if (s != null && remove) {
            pendingCount--;
        }
        return s;
    }

    private void putHeld(int k, Held h) {
        int i = k & mask;
        if (heldRing[i] == null) {
            heldRing[i] = h;
            heldSeq[i] = k;
        } else {
            heldOverflow.put(k, h);
        }
        heldCount++;
    }

    private Held heldFor(int k, boolean remove) {
        int i = k & mask;
        Held h = heldRing[i];
        if (h != null && heldSeq[i] == k) {
            if (remove) {
                heldRing[i] = null;
                heldCount--;
            }
            return h;
        }
        if (heldOverflow.isEmpty()) {
            return null;
        }
        h = remove ? heldOverflow.remove(k) : heldOverflow.get(k);
        if (h != null && remove) {
            heldCount--;
        }
        return h;
    }

    /**
     * A recv is posted with {@code slot}: numbers it ({@link Slot#msgSeq}, also written into its meta
     * message {@code metaBuffer} if not null) and returns the arrival
     * held for it (removed), or null. It stays pending unless a data or cancelled message was held.
     */
    synchronized Held post(Slot slot, MemorySegment metaBuffer) {
        int k = nextRecv++ & Wire32.SEQ_MASK;
        slot.msgSeq = k;
        if (metaBuffer != null) {
            Wire32.writeMetaSeq(metaBuffer, k); // before the recv is pending: a notice may send the meta at once
        }
        Held h = heldFor(k, true);
        if (h == null || h.kind() == Wire32.EAGER_NOTICE) {
            putPending(k, slot);
        }
        return h;
    }

    /**
     * An arrival of {@code kind} for message {@code seq}: returns its pending recv (removed from the
     * pending ones, except for a notice), or holds it (copying {@code payload}) and returns null;
     * {@link #STALE} for a notice whose recv no longer waits.
     *
     * @throws IllegalStateException for a message whose recv was posted and is no longer pending
     *                               (a duplicate or a stray), or one more than the limit held: a
     *                               protocol error, the caller drops and counts it
     */
    Slot arrive(int seq, int kind, MemorySegment payload) {
        return arrive(seq, kind, payload, payload == null ? 0 : (int) payload.byteSize());
    }

    /**
     * As {@link #arrive(int, int, MemorySegment)} for the first {@code length} bytes of
     * {@code bounce}, which are read only if the arrival is held: a matched arrival costs no slice.
     */
    synchronized Slot arrive(int seq, int kind, MemorySegment bounce, int length) {
        Slot s = pendingFor(seq, kind != Wire32.EAGER_NOTICE);
        if (s != null) {
            return s;
        }
        if (((seq - nextRecv) & Wire32.SEQ_MASK) >= (1 << 27)) {
            if (kind == Wire32.EAGER_NOTICE) {
                return STALE;
            }
            throw new IllegalStateException("eager message " + seq + " for a recv no longer waiting (next recv "
                    + (nextRecv & Wire32.SEQ_MASK) + ")");
        }
        if (heldFor(seq, false) != null) {
            throw new IllegalStateException("a second eager message " + seq + " before its recv");
        }
        if (heldCount >= limit) {
            throw new IllegalStateException("eager message " + seq + " beyond the " + limit
                    + " this endpoint holds at most (its eager window): the peer spent credits it did not have");
        }
        byte[] copy = NONE;
        if (bounce != null && length > 0) {
            copy = new byte[length];
            MemorySegment.copy(bounce, ValueLayout.JAVA_BYTE, 0, copy, 0, length);
        }
        putHeld(seq, new Held(kind, copy));
        heldTotal++;
        return null;
    }

    /** A recv's data came another way (a rendezvous write): it is no longer pending. */
    synchronized void forget(Slot slot) {
        int i = slot.msgSeq & mask;
        if (pendingRing[i] == slot) {
            pendingRing[i] = null;
            pendingCount--;
        } else if (!pendingOverflow.isEmpty() && pendingOverflow.remove(slot.msgSeq, slot)) { // unboxed when empty
            pendingCount--;
        }
    }

    /** Closing or failed: drops every held message; how many. Pending recvs are failed by their ops. */
    synchronized int clear() {
        int n = heldCount;
        java.util.Arrays.fill(heldRing, null);
        java.util.Arrays.fill(pendingRing, null);
        heldOverflow.clear();
        pendingOverflow.clear();
        heldCount = 0;
        pendingCount = 0;
        return n;
    }

    synchronized int held() {
        return heldCount;
    }

    synchronized int pending() {
        return pendingCount;
    }

    /** Messages held since the start. */
    synchronized long heldTotal() {
        return heldTotal;
    }
}
