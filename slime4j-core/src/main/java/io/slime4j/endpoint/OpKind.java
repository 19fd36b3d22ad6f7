package io.slime4j.endpoint;

/** What an operation of an {@link RdmaEndpoint} does. */
public enum OpKind {
    /** One-sided read of a batch. */
    READ,
    /** One-sided write of a batch. */
    WRITE,
    /** One-sided write of a batch, then an immediate datum delivered to the peer's {@code immRecv}. */
    WRITE_WITH_IMM,
    /** Two-sided send (rendezvous: written into the buffer of the peer's matching recv). */
    SEND,
    /** Two-sided receive. */
    RECV,
    /** Receipt of the next immediate datum of a peer's write-with-imm. */
    IMM_RECV,
    /** {@link RdmaEndpoint#flush()}: completes when every earlier one-sided op and send has. */
    FLUSH
}
