package io.slime4j.endpoint;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkRequest;

/**
 * The sender's half of a rendezvous once a send met its meta ({@link MessagePath}): one
 * RDMA_WRITE_WITH_IMM on the data queue pair of lane 0, straight into the peer's recv buffer, the
 * meta's token and a code in the immediate — the data, or, writing nothing, that the send was
 * cancelled, that the peer cancelled the recv (REM_ABORT_ERR here), or that the send is longer than
 * the recv (LOC_LEN_ERR on both sides). So the pairing never slips.
 */
final class RendezvousWriter {
    private final String name;
    private final Router router;
    private final Transport transport;
    private final SlotReleaser releaser;
    private final SlotPool sendPool;
    /** Each send slot's one work request, refilled per lease (posting copies it), so a message allocates none. */
    private final WorkRequest[] wrs;

    RendezvousWriter(String name, Router router, Transport transport, SlotReleaser releaser, SlotPool sendPool,
                     int slots) {
        this.name = name;
        this.router = router;
        this.transport = transport;
        this.releaser = releaser;
        this.sendPool = sendPool;
        this.wrs = new WorkRequest[slots];
        for (int i = 0; i < slots; i++) {
            wrs[i] = new WorkRequest();
        }
    }

    /** A send met its meta: write the data (or say why not) into the peer's buffer. */
    void post(Slot slot, Wire32.Meta meta, boolean recvCancelled) {
        OpState op = slot.tenant();
        int code;
        if (op == null || op.isDone()) {
            code = Wire32.CODE_CANCELLED;
        } else if (recvCancelled) {
            code = Wire32.CODE_CANCELLED;
            op.fail(WcStatus.REM_ABORT_ERR, "endpoint " + name + ": the peer cancelled the recv matched with this "
                    + "send; nothing was written");
        } else if (slot.length > meta.length()) {
            code = Wire32.CODE_TOO_LONG;
            op.fail(WcStatus.LOC_LEN_ERR, "endpoint " + name + ": send of " + slot.length
                    + " bytes is longer than the peer's matching recv of " + meta.length() + " bytes");
        } else {
            code = Wire32.CODE_DATA;
        }
        router.select(QpOpType.RENDEZVOUS_DATA, op == null ? 0 : op.seq); // the data queue pair: lane 0
        WorkRequest wr = wrs[slot.index].clear().wrId(WrIds.encode(WrIds.MSG_DATA, 0, slot.index, 0,
                op == null ? 0 : op.seq))
                .opcode(Opcode.RDMA_WRITE_WITH_IMM).immediate(Wire32.withCode(meta.token(), code))
                .remote(meta.address(), meta.remoteKey());
        if (code == Wire32.CODE_DATA && slot.length > 0) {
            wr.sge(slot.localAddress, slot.length, slot.localKey);
        }
        try {
            transport.data.postSend(wr);
        } catch (RuntimeException e) {
            if (op != null) {
                op.fail(WcStatus.GENERAL_ERR, "endpoint " + name + ": posting send data failed: " + e.getMessage());
            }
            releaser.countDown(sendPool, slot, 1);
        }
    }
}
