package io.slime4j.verbs;

/** Send-queue work request opcodes, as in {@code ibv_wr_opcode}. */
public enum Opcode {
    /** Two-sided send; consumes a receive at the peer. */
    SEND(WcOpcode.SEND),
    /** Send carrying a 32-bit immediate in the peer's receive completion. */
    SEND_WITH_IMM(WcOpcode.SEND),
    /** One-sided write into the peer's registered memory; invisible to the peer's CPU. */
    RDMA_WRITE(WcOpcode.RDMA_WRITE),
    /** One-sided write that then consumes a receive at the peer, carrying a 32-bit immediate. */
    RDMA_WRITE_WITH_IMM(WcOpcode.RDMA_WRITE),
    /** One-sided read of the peer's registered memory into local memory. */
    RDMA_READ(WcOpcode.RDMA_READ),
    /** 64-bit fetch-and-add on an 8-byte aligned remote address; the old value lands locally. */
    ATOMIC_FETCH_ADD(WcOpcode.FETCH_ADD),
    /** 64-bit compare-and-swap on an 8-byte aligned remote address; the old value lands locally. */
    ATOMIC_CMP_SWAP(WcOpcode.COMP_SWAP);

    private final WcOpcode completionOpcode;

    Opcode(WcOpcode completionOpcode) {
        this.completionOpcode = completionOpcode;
    }

    /** The opcode reported in this request's completion. */
    public WcOpcode completionOpcode() {
        return completionOpcode;
    }

    /** Whether the request consumes a receive at the peer. */
    public boolean consumesReceive() {
        return this == SEND || this == SEND_WITH_IMM || this == RDMA_WRITE_WITH_IMM;
    }

    /** Whether the request carries immediate data. */
    public boolean hasImmediate() {
        return this == SEND_WITH_IMM || this == RDMA_WRITE_WITH_IMM;
    }

    /** Whether the request needs a response carrying data back (read or atomic). */
    public boolean isReadOrAtomic() {
        return this == RDMA_READ || this == ATOMIC_FETCH_ADD || this == ATOMIC_CMP_SWAP;
    }

    /** Whether the request is an atomic. */
    public boolean isAtomic() {
        return this == ATOMIC_FETCH_ADD || this == ATOMIC_CMP_SWAP;
    }

    /** Whether the request addresses remote memory (needs remote address and key). */
    public boolean isRemote() {
        return this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM || isReadOrAtomic();
    }
}
