package io.slime4j.verbs;

/**
 * A reliable-connected queue pair. State machine: {@link QpState#RESET} → {@link QpState#INIT}
 * → {@link QpState#RTR} → {@link QpState#RTS}, and {@link QpState#ERR} from any state on a fatal
 * error or on request.
 *
 * <p>Guarantees (the RC contract): send requests execute at the peer exactly once and in post
 * order, and complete in post order; SEND, SEND_WITH_IMM and RDMA_WRITE_WITH_IMM consume the peer's
 * receives in order; a failed request completes with an error status even when unsignaled, moves
 * the queue pair to ERR, and every other outstanding request then completes with
 * {@link WcStatus#WR_FLUSH_ERR}.
 */
public interface QueuePair extends AutoCloseable {

    /** The queue pair number, unique on its device. */
    int qpn();

    /** The current state. */
    QpState state();

    /** The attributes it was created with. */
    QpConfig config();

    /** What a peer needs to connect to this queue pair. */
    QpInfo localInfo();

    /** RESET → INIT: receives may now be posted. */
    void modifyToInit();

    /** INIT → RTR: connects the receive side to {@code remote}. */
    void modifyToRtr(QpInfo remote);

    /** RTR → RTS: sends may now be posted. */
    void modifyToRts();

    /** Any state → ERR: flushes every outstanding request. */
    void modifyToError();

    /** RESET or INIT → RTS against {@code remote}: the three transitions in one call. */
    default void connect(QpInfo remote) {
        if (state() == QpState.RESET) {
            modifyToInit();
        }
        modifyToRtr(remote);
        modifyToRts();
    }

    /**
     * Posts a send-queue request. Returns at once; never blocks.
     *
     * @throws QueueFullException       if the send queue holds {@link QpConfig#sendQueueDepth()}
     *                                  requests not yet retired by a polled completion
     * @throws VerbsException           if the queue pair is not in RTS (in ERR the request is
     *                                  accepted and flushed, as in ibverbs)
     * @throws IllegalArgumentException on a malformed request (too many SGEs, missing remote key,
     *                                  misuse of an opcode)
     */
    void postSend(WorkRequest request);

    /**
     * Posts a receive. Allowed from INIT on.
     *
     * @throws QueueFullException if {@link QpConfig#recvQueueDepth()} receives are already posted
     */
    void postRecv(WorkRequest request);

    /** This queue pair's counters. */
    Counters counters();

    /** Moves to ERR, flushes, and releases the queue pair number. Idempotent. */
    @Override
    void close();
}
