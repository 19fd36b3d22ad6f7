package io.slime4j.verbs;

/**
 * One completion, as {@code ibv_wc}: the request's {@code wrId}, its status, opcode, byte count
 * (receives), immediate data and the queue pair number. Caller-owned and reusable:
 * {@link CompletionQueue#poll} fills an array of them, so polling allocates nothing.
 */
public final class WorkCompletion {
    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private WcOpcode opcode = WcOpcode.SEND;
    private int byteLength;
    private int immediate;
    private boolean hasImmediate;
    private int qpn;

    /** Creates an array of {@code n} fresh completions to poll into. */
    public static WorkCompletion[] array(int n) {
        WorkCompletion[] wcs = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            wcs[i] = new WorkCompletion();
        }
        return wcs;
    }

    /** Fills every field; used by verbs implementations. */
    public WorkCompletion set(long wrId, WcStatus status, WcOpcode opcode, int byteLength,
                              int immediate, boolean hasImmediate, int qpn) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLength = byteLength;
        this.immediate = immediate;
        this.hasImmediate = hasImmediate;
        this.qpn = qpn;
        return this;
    }

    /** Copies another completion into this one. */
    public WorkCompletion copyFrom(WorkCompletion o) {
        return set(o.wrId, o.status, o.opcode, o.byteLength, o.immediate, o.hasImmediate, o.qpn);
    }

    public long wrId() {
        return wrId;
    }

    public WcStatus status() {
        return status;
    }

    /** Whether the status is {@link WcStatus#SUCCESS}. */
    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }

    /** The opcode; for failed requests it is the opcode the request had. */
    public WcOpcode opcode() {
        return opcode;
    }

    /** Bytes received (receive completions) or the request's length (send-side completions). */
    public int byteLength() {
        return byteLength;
    }

    /** The immediate datum, valid when {@link #hasImmediate()}. */
    public int immediate() {
        return immediate;
    }

    public boolean hasImmediate() {
        return hasImmediate;
    }

    /** The number of the queue pair the request belonged to. */
    public int qpn() {
        return qpn;
    }

    @Override
    public String toString() {
        return "WorkCompletion{wrId=" + wrId + ", status=" + status + ", opcode=" + opcode
                + ", byteLength=" + byteLength + (hasImmediate ? ", imm=" + immediate : "")
                + ", qpn=" + qpn + "}";
    }
}
