package io.slime4j.endpoint;

import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.WorkRequest;

/**
 * {@link LaneRecovery}'s hands on the endpoint's transport: makes, connects and adopts a lane's
 * fresh queue pair ({@link Transport}), moves the lane's {@link IoSendQueue} to it once the old
 * queue pair has nothing outstanding, and sends the lane messages on the meta queue pair from two
 * 32-byte buffers per lane in the control region (a reset and an answer), each stating the
 * write-with-imm requests posted on the old pair; hands the peer's statement to {@link ImmRefunds}.
 */
final class RecoveryLanes implements LaneRecovery.Lanes {
    private final Transport transport;
    private final IoSendQueue[] sendQueues;
    private final ImmRecvPath imm;
    private final WorkRequest wr = new WorkRequest();

    RecoveryLanes(Transport transport, IoSendQueue[] sendQueues, ImmRecvPath imm) {
        this.transport = transport;
        this.sendQueues = sendQueues;
        this.imm = imm;
    }

    @Override
    public int qpn(int lane) {
        return transport.io[lane].qpn();
    }

    @Override
    public QpInfo prepare(int lane) {
        QpInfo fresh = transport.prepareLane(lane);
        RecvWindow retired = transport.retiredImmWindow(lane);
        imm.refunds().retire(lane, retired.qpn(), retired::posted, fresh.qpn());
        return fresh;
    }

    @Override
    public void connect(int lane, QpInfo remote) {
        transport.connectLane(lane, remote);
    }

    @Override
    public boolean adoptIfDrained(int lane) {
        QueuePair fresh = transport.fresh(lane);
        if (fresh == null) {
            return false;
        }
        if (!sendQueues[lane].adopt(fresh)) {
            // requests of the old queue pair are still recorded; the newest may be an unsignaled one that
            // succeeded before the error and will never complete: a cover (flushed on the old pair) retires it
            sendQueues[lane].cover();
            return false;
        }
        Transport.retire(transport.adoptLane(lane));
        int unstated = sendQueues[lane].unstatedImmOfOld(); // posted on the old pair in ERR: never reached the peer
        if (unstated > 0) {
            imm.creditsReturned(unstated);
        }
        return true;
    }

    @Override
    public void discard(int lane) {
        transport.discardLane(lane);
    }

    @Override
    public synchronized void send(int type, int lane, int epoch, QpInfo fresh) {
        long offset = transport.laneMessageBase + (2L * lane + (type == Wire32.LANE_READY_TYPE ? 1 : 0))
                * Wire32.META_BYTES;
        Wire32.writeLane(transport.control.segment().asSlice(offset, Wire32.META_BYTES), fresh.qpn(), fresh.psn(),
                fresh.token(), sendQueues[lane].stateImmPosted()); // the old pair is in ERR by now
        wr.clear().wrId(WrIds.encode(WrIds.LANE_SEND, lane, type, 0, epoch)).opcode(Opcode.SEND_WITH_IMM)
                .immediate(Wire32.metaImm(type, Wire32.laneValue(lane, epoch)))
                .sge(transport.control, offset, Wire32.META_BYTES);
        transport.meta.postSend(wr);
    }

    @Override
    public void peerPosted(int lane, Wire32.Lane message) {
        imm.refunds().peerPosted(lane, message.immPosted());
    }

    @Override
    public QpInfo remote(int lane, Wire32.Lane message) {
        EndpointInfo peer = transport.peer();
        return new QpInfo(peer.ioQps().get(lane).address(), message.qpn(), message.psn(), message.token());
    }
}
