package io.slime4j.verbs;

/** Completion opcodes, as in {@code ibv_wc_opcode}. */
public enum WcOpcode {
    SEND,
    RDMA_WRITE,
    RDMA_READ,
    COMP_SWAP,
    FETCH_ADD,
    /** A receive consumed by a SEND or SEND_WITH_IMM. */
    RECV,
    /** A receive consumed by an RDMA_WRITE_WITH_IMM. */
    RECV_RDMA_WITH_IMM
}
