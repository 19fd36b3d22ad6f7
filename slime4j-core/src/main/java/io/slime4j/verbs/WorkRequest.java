package io.slime4j.verbs;

import java.util.Arrays;

/**
 * A work request for {@link QueuePair#postSend} or {@link QueuePair#postRecv}: a caller-chosen
 * {@code wrId} that comes back in the completion, an opcode, a scatter/gather list of local
 * memory (address, length, local key), and for one-sided operations the remote address and key.
 *
 * <p>Mutable and reusable: posting copies it, so one instance can be refilled and posted again at
 * once, without allocation. {@link #clear()} resets it. Receives use only {@code wrId} and the
 * scatter/gather list.
 */
public final class WorkRequest {
    private static final int INITIAL_SGE = 4;

    private long wrId;
    private Opcode opcode = Opcode.SEND;
    private boolean signaled = true;
    private boolean fence;
    private boolean more;
    private int immediate;
    private long remoteAddress;
    private long remoteKey;
    private long compareAdd;
    private long swap;
    private int numSge;
    private long[] sgeAddress = new long[INITIAL_SGE];
    private long[] sgeLength = new long[INITIAL_SGE];
    private long[] sgeKey = new long[INITIAL_SGE];

    /** Resets every field to its default (opcode SEND, signaled, no SGEs). */
    public WorkRequest clear() {
        wrId = 0;
        opcode = Opcode.SEND;
        signaled = true;
        fence = false;
        more = false;
        immediate = 0;
        remoteAddress = 0;
        remoteKey = 0;
        compareAdd = 0;
        swap = 0;
        numSge = 0;
        return this;
    }

    /** Sets the caller's 64-bit id, returned in the completion. */
    public WorkRequest wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** Sets the opcode (send queue only). */
    public WorkRequest opcode(Opcode opcode) {
        if (opcode == null) {
            throw new IllegalArgumentException("opcode must not be null");
        }
        this.opcode = opcode;
        return this;
    }

    /**
     * Whether a successful completion is generated. Ignored when the queue pair signals every
     * request ({@link QpConfig#signalAll()}); failures always generate a completion.
     */
    public WorkRequest signaled(boolean signaled) {
        this.signaled = signaled;
        return this;
    }

    /** Makes this request wait until every earlier read and atomic of the queue pair has completed. */
    public WorkRequest fence(boolean fence) {
        this.fence = fence;
        return this;
    }

    /**
     * Says that the poster will post more requests, or wait for a completion, soon (libfabric's
     * {@code FI_MORE}): a hint that lets a device hold this request for a moment and send it with
     * the ones that follow. A busy-polling soft device does, while earlier requests of the queue pair
     * are not yet retired: it leaves with the next duty cycle (the poster's next wait on the device's
     * completion queue, another waiter's cycle, or a post made when 32 are held or the first held
     * one is 20 µs old); if nobody posts or waits again, the device's agent runs the cycle when its
     * rest ends (at most 10 ms). A default soft device does, for a request not behind others, while
     * its agent rests and no waiter drives it: the request leaves with the next post not held, the
     * poster's next wait or the rest's end (at most 1 ms), so say it of requests nobody waits for
     * soon. Other devices ignore it. Default false: the request leaves at once.
     */
    public WorkRequest more(boolean more) {
        this.more = more;
        return this;
    }

    /** Sets the 32-bit immediate for SEND_WITH_IMM and RDMA_WRITE_WITH_IMM. */
    public WorkRequest immediate(int immediate) {
        this.immediate = immediate;
        return this;
    }

    /** Sets the remote address and remote key for RDMA and atomic opcodes. */
    public WorkRequest remote(long address, long remoteKey) {
        this.remoteAddress = address;
        this.remoteKey = remoteKey;
        return this;
    }

    /** Sets the remote target as an offset into a peer region described by its address and key. */
    public WorkRequest remote(RemoteRegion region, long offset) {
        return remote(region.address() + offset, region.remoteKey());
    }

    /** Sets the operands of an atomic: the addend (FETCH_ADD) or the compare value (CMP_SWAP), and the swap value. */
    public WorkRequest atomic(long compareAdd, long swap) {
        this.compareAdd = compareAdd;
        this.swap = swap;
        return this;
    }

    /** Appends a scatter/gather entry over part of a registered region. */
    public WorkRequest sge(MemoryRegion region, long offset, long length) {
        return sge(region.address() + offset, length, region.localKey());
    }

    /** Appends a raw scatter/gather entry, as {@code ibv_sge} (address, length, local key). */
    public WorkRequest sge(long address, long length, long localKey) {
        if (length < 0) {
            throw new IllegalArgumentException("SGE length must not be negative, was " + length);
        }
        if (numSge == sgeAddress.length) {
            int n = numSge * 2;
            sgeAddress = Arrays.copyOf(sgeAddress, n);
            sgeLength = Arrays.copyOf(sgeLength, n);
            sgeKey = Arrays.copyOf(sgeKey, n);
        }
        sgeAddress[numSge] = address;
        sgeLength[numSge] = length;
        sgeKey[numSge] = localKey;
        numSge++;
        return this;
    }

    /** Removes every scatter/gather entry. */
    public WorkRequest clearSge() {
        numSge = 0;
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public Opcode opcode() {
        return opcode;
    }

    public boolean signaled() {
        return signaled;
    }

    /** Whether the poster said more will follow ({@link #more(boolean)}). */
    public boolean more() {
        return more;
    }

    public boolean fence() {
        return fence;
    }

    public int immediate() {
        return immediate;
    }

    public long remoteAddress() {
        return remoteAddress;
    }

    public long remoteKey() {
        return remoteKey;
    }

    public long compareAdd() {
        return compareAdd;
    }

    public long swap() {
        return swap;
    }

    /** Number of scatter/gather entries. */
    public int numSge() {
        return numSge;
    }

    public long sgeAddress(int i) {
        checkSge(i);
        return sgeAddress[i];
    }

    public long sgeLength(int i) {
        checkSge(i);
        return sgeLength[i];
    }

    public long sgeKey(int i) {
        checkSge(i);
        return sgeKey[i];
    }

    /** Sum of the scatter/gather lengths. */
    public long totalLength() {
        long total = 0;
        for (int i = 0; i < numSge; i++) {
            total += sgeLength[i];
        }
        return total;
    }

    private void checkSge(int i) {
        if (i < 0 || i >= numSge) {
            throw new IndexOutOfBoundsException("SGE " + i + " of " + numSge);
        }
    }

    @Override
    public String toString() {
        return "WorkRequest{wrId=" + wrId + ", opcode=" + opcode + ", signaled=" + signaled
                + ", numSge=" + numSge + ", length=" + totalLength() + "}";
    }
}
