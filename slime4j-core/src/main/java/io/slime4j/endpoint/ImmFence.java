package io.slime4j.endpoint;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The deferred immediate of a write-with-imm whose requests were spread over several io queue
 * pairs. RC orders requests only within one queue pair, so the immediate may reach the peer only
 * after every data request of the batch has completed (been acknowledged, so placed). The fence
 * counts them down; whoever counts the last one (the dispatch thread, or the caller when it
 * finished posting last) posts a zero-length RDMA_WRITE_WITH_IMM, or, when the op failed or was
 * cancelled, gives back what was reserved for it. An ordered write-with-imm (see {@link Ordering})
 * also counts the settling of the one-sided ops posted before it, and takes this path even when
 * its data went to one queue pair. The request's position in the op's last slot is
 * reserved in advance, so the slot cannot be released before it.
 */
final class ImmFence {
    private final AtomicInteger gate;
    final int immediate;
    final int qp;
    final long remoteAddress;
    final long remoteKey;
    /**
     * The slot (by index: an op state never references a pooled slot) and position reserved for the
     * immediate request, once the caller got that far; -1 before.
     */
    volatile int slot = -1;
    volatile int sub;
    /** Whether the caller holds a send-queue credit of {@link #qp} for the request. */
    volatile boolean sqCreditHeld;

    /**
     * Counts {@code dataRequests} data completions plus one for the caller finishing, plus one more
     * when {@code ordered}: the {@link OrderGate} of the one-sided ops posted before this one.
     */
    ImmFence(int dataRequests, boolean ordered, int immediate, int qp, long remoteAddress, long remoteKey) {
        this.gate = new AtomicInteger(dataRequests + 1 + (ordered ? 1 : 0));
        this.immediate = immediate;
        this.qp = qp;
        this.remoteAddress = remoteAddress;
        this.remoteKey = remoteKey;
    }

    /** Counts down; whether this was the last arrival (the caller must then fire the fence). */
    boolean arrive(int n) {
        int left = gate.addAndGet(-n);
        if (left < 0) {
            throw new IllegalStateException("immediate fence counted below zero");
        }
        return left == 0;
    }

    boolean isImmRequest(int slotIndex, int position) {
        return slot == slotIndex && sub == position;
    }
}
