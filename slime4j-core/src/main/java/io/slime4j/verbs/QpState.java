package io.slime4j.verbs;

/** Queue pair states, as in {@code ibv_qp_state} for reliable-connected queue pairs. */
public enum QpState {
    /** Created; nothing may be posted. */
    RESET,
    /** Receives may be posted; nothing is processed yet. */
    INIT,
    /** Ready to receive: incoming requests are processed. */
    RTR,
    /** Ready to send: sends are processed too. */
    RTS,
    /** Failed: every outstanding and newly posted request completes with {@link WcStatus#WR_FLUSH_ERR}. */
    ERR
}
