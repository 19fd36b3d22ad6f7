package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.HEADER_LENGTH;

import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;

import java.lang.foreign.MemorySegment;

/**
 * The posted receives that the peer's SEND and WRITE_WITH_IMM messages consume, in order: finds
 * the receive a SEND packet lands in by message sequence number (so packets ahead of order land
 * too), scatters the payload into it, and completes it when its message is executed.
 * Progress agent thread only; {@link #consumed()} is read by posting threads.
 */
final class MessageReceiver {
    private final SoftQueuePair qp;
    private final KeyTable keyTable;
    private volatile long rqConsumed;
    /** MSN of the message that will consume the receive at {@link #rqConsumed}. */
    private int msnExpected;

    MessageReceiver(SoftQueuePair qp, KeyTable keyTable) {
        this.qp = qp;
        this.keyTable = keyTable;
    }

    /** Receives consumed so far (read by posting threads to see whether the receive queue is full). */
    long consumed() {
        return rqConsumed;
    }

    /** Which receive, counted from the next to consume, the message of {@code msn} lands in. */
    int receiveIndex(long msn) {
        return (int) msn - msnExpected;
    }

    /** Whether the receive {@code k} places past the next one is posted. */
    boolean isPosted(int k) {
        return k < qp.rqPosted() - rqConsumed;
    }

    /**
     * Checks that the receive {@code k} has room for a message of {@code msgLength} (resolving its
     * memory on first use). In order, a failure completes the receive in error and fails the queue
     * pair; ahead of order it only refuses the packet.
     */
    Verdict checkCapacity(int k, int msgLength, boolean inOrder) {
        RecvWqe rw = qp.recvWqe(rqConsumed + k);
        if (!rw.resolved) {
            WcStatus err = Sgl.resolve(keyTable, qp.pd(), rw.numSge, rw.sgeAddress, rw.sgeLength,
                    rw.sgeKey, true, rw.sgeSegment, rw.sgeOffset);
            if (err != null) {
                return inOrder ? failReceive(err, Verdict.NAK_REMOTE_OPERATION) : Verdict.DROP;
            }
            rw.resolved = true;
        }
        if (msgLength > rw.capacity) {
            return inOrder ? failReceive(WcStatus.LOC_LEN_ERR, Verdict.NAK_INVALID_REQUEST) : Verdict.DROP;
        }
        return Verdict.OK;
    }

    /** Scatters {@code payload} bytes of {@code packet} at {@code offset} of the receive {@code k}'s message. */
    Verdict place(int k, MemorySegment packet, int payload, long offset, boolean inOrder) {
        RecvWqe rw = qp.recvWqe(rqConsumed + k);
        try {
            Sgl.scatter(packet, HEADER_LENGTH, payload, rw.numSge, rw.sgeSegment, rw.sgeOffset, rw.sgeLength, offset);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return inOrder ? failReceive(WcStatus.LOC_PROT_ERR, Verdict.NAK_REMOTE_OPERATION) : Verdict.DROP;
        }
        return Verdict.OK;
    }

    /** The last packet of a SEND executed in order: its receive completes. */
    void completeSend(int msgLength, boolean hasImmediate, int immediate) {
        retire(WcStatus.SUCCESS, WcOpcode.RECV, msgLength, hasImmediate ? immediate : 0, hasImmediate);
        msnExpected++;
    }

    /** A WRITE_WITH_IMM executed in order consumes a receive for its immediate; RNR if none is posted. */
    Verdict consumeForImmediate(int immediate, int msgLength) {
        if (rqConsumed == qp.rqPosted()) {
            return Verdict.RNR;
        }
        retire(WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, msgLength, immediate, true);
        msnExpected++;
        return Verdict.OK;
    }

    /** Completes the receive with a local error and fails this queue pair; returns the NAK to send. */
    private Verdict failReceive(WcStatus status, Verdict nak) {
        retire(status, WcOpcode.RECV, 0, 0, false);
        msnExpected++;
        qp.failResponder();
        return nak;
    }

    /**
     * Completes the oldest posted receive. The slot is counted free before the completion becomes
     * visible, so a caller may re-post from its completion without finding the queue full.
     */
    private void retire(WcStatus status, WcOpcode opcode, int length, int immediate, boolean hasImmediate) {
        long wrId = qp.recvWqe(rqConsumed).wrId;
        rqConsumed++;
        qp.completeRecv(wrId, status, opcode, length, immediate, hasImmediate);
    }

    /** Completes every posted receive with WR_FLUSH_ERR (queue pair in ERR). */
    int flush() {
        int n = 0;
        long posted = qp.rqPosted();
        while (rqConsumed != posted) {
            retire(WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, false);
            n++;
        }
        return n;
    }
}
