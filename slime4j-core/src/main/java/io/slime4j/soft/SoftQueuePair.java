package io.slime4j.soft;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.QueueFullException;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.VerbsException;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkRequest;
import io.slime4j.wire.WireAddress;

import java.security.SecureRandom;

/**
 * A reliable-connected queue pair of a {@link SoftDevice}. Application threads post into bounded
 * send and receive rings (under a per-ring lock, copying the request); the progress agent drains
 * them through the {@link Requester}, {@link Responder} and {@link Completer} and reports through completion queues.
 * State changes to ERR are made visible at once and flushed by the agent.
 */
final class SoftQueuePair implements QueuePair {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SoftDevice device;
    private final SoftProtectionDomain pd;
    private final QpConfig config;
    private final SoftCompletionQueue sendCq;
    private final SoftCompletionQueue recvCq;
    private final CounterSet counters;
    private final int qpn;
    private final long localToken;
    private final int initialPsn;

    private final SendWqe[] sq;
    private final int sqMask;
    private final RecvWqe[] rq;
    private final int rqMask;
    private final Object sqLock = new Object();
    private final Object rqLock = new Object();
    private volatile long sqPosted;
    private volatile long sqRetired;
    private volatile long rqPosted;

    private final SendProgress progress = new SendProgress();
    private final ResponseQueue responses = new ResponseQueue();
    private final OutboundStream stream;
    private final LossRecovery loss;
    private final Requester requester;
    private final Completer completer;
    private final Responder responder;

    private volatile QpState state = QpState.RESET;
    private JmxCounters jmx;
    private volatile boolean closed;
    private boolean errorHandled;
    private volatile WireAddress peerAddress;
    private int peerQpn;
    private long peerToken;

    SoftQueuePair(SoftDevice device, int qpn, SoftProtectionDomain pd, QpConfig config,
                  SoftCompletionQueue sendCq, SoftCompletionQueue recvCq) {
        this.device = device;
        this.qpn = qpn;
        this.pd = pd;
        this.config = config;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.counters = device.countersSet().child();
        long token;
        do {
            token = RANDOM.nextLong();
        } while (token == 0);
        this.localToken = token;
        this.initialPsn = config.initialPsn() >= 0 ? (int) config.initialPsn() : RANDOM.nextInt();
        int sqSize = ringSize(config.sendQueueDepth());
        sq = new SendWqe[sqSize];
        for (int i = 0; i < sqSize; i++) {
            sq[i] = new SendWqe(config.maxSge());
        }
        sqMask = sqSize - 1;
        int rqSize = ringSize(config.recvQueueDepth());
        rq = new RecvWqe[rqSize];
        for (int i = 0; i < rqSize; i++) {
            rq[i] = new RecvWqe(config.maxSge());
        }
        rqMask = rqSize - 1;
        SoftConfig soft = device.softConfig();
        this.stream = new OutboundStream(soft.sendWindow(), initialPsn, this::onSegmentTimeout);
        int packetBytes = config.mtu() + HeaderFlyweight.HEADER_LENGTH;
        CongestionControl congestion = new AimdCongestionControl(soft.initialCongestionWindow(), soft.sendWindow(),
                () -> (int) Math.min(Integer.MAX_VALUE, stream.peerWindowPackets(packetBytes)));
        this.loss = new LossRecovery(stream, congestion, new RttEstimator(config.ackTimeout().toNanos()),
                device.timers(), counters, config.retryCount(), soft.ackDelay().toNanos());
        this.completer = new Completer(this, device, stream, loss, responses, progress);
        this.responder = new Responder(this, device, responses, completer);
        Transmitter transmitter = new Transmitter(this, device, stream, loss, progress, responder);
        this.requester = new Requester(this, device, stream, congestion, loss, responses, progress, transmitter);
    }

    private static int ringSize(int depth) {
        return depth == 1 ? 1 : Integer.highestOneBit(depth - 1) << 1;
    }

    // ---------------------------------------------------------------- accessors for the engine

    SoftProtectionDomain pd() { return pd; }
    Completer completer() { return completer; }
    Responder responder() { return responder; }
    WireAddress peerAddress() { return peerAddress; }
    int peerQpn() { return peerQpn; }
    long peerToken() { return peerToken; }
    long localToken() { return localToken; }
    long sqPosted() { return sqPosted; }
    long rqPosted() { return rqPosted; }
    SendWqe sendWqe(long ssn) { return sq[(int) (ssn & sqMask)]; }
    RecvWqe recvWqe(long n) { return rq[(int) (n & rqMask)]; }
    CounterSet countersSet() { return counters; }
    SoftCompletionQueue sendCq() { return sendCq; }
    SoftCompletionQueue recvCq() { return recvCq; }

    /** Whether packets are processed: RTR, RTS (and not ERR). */
    boolean isActive() {
        QpState s = state;
        return s == QpState.RTR || s == QpState.RTS;
    }

    // ---------------------------------------------------------------- QueuePair

    @Override
    public int qpn() {
        return qpn;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public QpConfig config() {
        return config;
    }

    @Override
    public QpInfo localInfo() {
        return new QpInfo(device.address(), qpn, initialPsn, localToken);
    }

    @Override
    public Counters counters() {
        return counters;
    }

    @Override
    public synchronized void modifyToInit() {
        requireState("modifyToInit", QpState.RESET);
        state = QpState.INIT;
    }

    @Override
    public synchronized void modifyToRtr(QpInfo remote) {
        requireState("modifyToRtr", QpState.INIT);
        if (remote == null) {
            throw new IllegalArgumentException("remote QpInfo must not be null");
        }
        peerAddress = device.resolve(remote.address());
        peerQpn = remote.qpn();
        peerToken = remote.token();
        responder.start(remote.psn());
        state = QpState.RTR;
    }

    @Override
    public synchronized void modifyToRts() {
        requireState("modifyToRts", QpState.RTR);
        state = QpState.RTS;
    }

    @Override
    public void modifyToError() {
        if (state != QpState.ERR) {
            state = QpState.ERR;
            device.nudge();
        }
    }

    private void requireState(String op, QpState expected) {
        QpState s = state;
        if (s != expected) {
            throw new VerbsException(op + " on QP " + qpn + " of " + device.name() + " needs state " + expected
                    + ", but it is " + s);
        }
    }

    private void checkOpen(String op) {
        if (closed || device.isClosed()) {
            throw new VerbsException(op + " on QP " + qpn + " of " + device.name() + ": "
                    + (closed ? "the queue pair" : "the device") + " is closed");
        }
    }

    @Override
    public void postSend(WorkRequest wr) {
        checkOpen("postSend");
        QpState s = state;
        if (s != QpState.RTS && s != QpState.ERR) {
            throw new VerbsException("postSend on QP " + qpn + " of " + device.name() + " needs state RTS, but it is "
                    + s + ": connect the queue pair first");
        }
        validate(wr, true);
        boolean behind;
        synchronized (sqLock) {
            long posted = sqPosted;
            if (posted - sqRetired >= config.sendQueueDepth()) {
                throw new QueueFullException("send queue of QP " + qpn + " is full (" + config.sendQueueDepth()
                        + " requests not yet retired): poll the send completion queue; with selective signaling,"
                        + " post a signaled request at least every " + config.sendQueueDepth() + " requests");
            }
            sendWqe(posted).load(posted, wr, config.signalAll());
            behind = posted != sqRetired; // earlier requests not yet retired: a lone post (a round trip's) is never held
            sqPosted = posted + 1;
        }
        counters.increment(Counter.WR_POSTED);
        // in ERR (its agent may be dead): the cycle flushes it now
        device.onPosted(wr.more() && s == QpState.RTS, behind && s == QpState.RTS);
    }

    @Override
    public void postRecv(WorkRequest wr) {
        checkOpen("postRecv");
        if (state == QpState.RESET) {
            throw new VerbsException("postRecv on QP " + qpn + " of " + device.name()
                    + " needs state INIT or later, but it is RESET");
        }
        validate(wr, false);
        synchronized (rqLock) {
            long posted = rqPosted;
            if (posted - responder.receivesConsumed() >= config.recvQueueDepth()) {
                throw new QueueFullException("receive queue of QP " + qpn + " is full (" + config.recvQueueDepth()
                        + " receives posted)");
            }
            recvWqe(posted).load(wr);
            rqPosted = posted + 1;
        }
        counters.increment(Counter.RECV_WR_POSTED);
        if (state == QpState.ERR) {
            // flushed by a duty cycle. Otherwise nothing needs a cycle for a new receive: a SEND that found
            // none was RNR-NAKed and comes back with the requester's retry. Waking the agent here cost a
            // default device's receiver an eventfd write and the agent's wake-up per receive while the agent
            // was blocked (12% of the caller's samples in one profile of a 32 B rate). A Dekker pair with modifyToError: rqPosted is written, then the
            // state read.
            device.wakeup();
        }
    }

    private void validate(WorkRequest wr, boolean send) {
        if (wr == null) {
            throw new IllegalArgumentException("work request must not be null");
        }
        if (wr.numSge() > config.maxSge()) {
            throw new IllegalArgumentException("work request has " + wr.numSge() + " SGEs; QP " + qpn
                    + " allows maxSge " + config.maxSge());
        }
        if (wr.totalLength() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("message of " + wr.totalLength() + " bytes exceeds 2^31-1");
        }
    }

    @Override
    public void close() {
        closed = true;
        modifyToError();
        device.destroyQueuePair(this);
    }

    synchronized void registerJmx(JmxCounters bean) {
        jmx = bean;
    }

    synchronized void unregisterJmx() {
        if (jmx != null) {
            jmx.unregister();
            jmx = null;
        }
    }

    // ---------------------------------------------------------------- agent side

    /**
     * One duty cycle for this queue pair; {@code detectLoss}: the cycle took the sockets in first, to
     * the end, so time-based loss detection (the tail-loss probe, the response timeout) may act. A
     * cycle that only sends, or whose receive ended early for a waiter, leaves it to the next whole
     * one: ACKs may be waiting unread in the socket, and a probe then resends what was delivered.
     */
    int doWork(long now, boolean detectLoss) {
        QpState s = state;
        if (s == QpState.ERR) {
            return handleError();
        }
        if (s != QpState.RTR && s != QpState.RTS) {
            return 0;
        }
        int work = sendAndComplete(now, s == QpState.RTS, detectLoss);
        work += responder.doWork(now);
        return work;
    }

    /** Whether an ACK the peer asked for at once waits for the next cycle (busy-polling devices). */
    boolean owesRequestedAck() {
        return responder.owesRequestedAck();
    }

    /** Nothing timed pending: no unacknowledged packet, owed response, RNR wait or owed ACK (see SoftDevice.quietAfterCycle). */
    boolean quiet() {
        return stream.isEmpty() && responses.isEmpty() && !progress.rnrWaiting && responder.quiet();
    }

    /** The send side's cycle: the requester sends what it may, then the completer completes in order. */
    private int sendAndComplete(long now, boolean sendRequests, boolean detectLoss) {
        if (progress.halted) {
            if (detectLoss) {
                completer.checkResponseTimeout(now);
            }
            return completer.completeInOrder();
        }
        if (progress.rnrWaiting) {
            if (now - progress.rnrUntil < 0) {
                return completer.completeInOrder();
            }
            progress.rnrWaiting = false;
        }
        int work = requester.doWork(now, sendRequests, detectLoss);
        if (detectLoss) {
            completer.checkResponseTimeout(now);
        }
        return work + completer.completeInOrder();
    }

    private void onSegmentTimeout(SendSegment s, long now) {
        completer.onTimeout(s, now);
    }

    /** Moves to ERR now (agent thread) and flushes. */
    void enterError() {
        state = QpState.ERR;
        handleError();
    }

    /** The responder hit a local error on a receive: the queue pair fails. */
    void failResponder() {
        state = QpState.ERR;
    }

    private int handleError() {
        if (!errorHandled) {
            errorHandled = true;
            completer.halt();
        }
        return completer.flush() + responder.flush();
    }

    void completeSend(SendWqe w, WcStatus status) {
        sendCq.push(this, w.ssn, w.wrId, status, w.opcode.completionOpcode(), w.length, 0, false);
    }

    void completeRecv(long wrId, WcStatus status, WcOpcode opcode, int length, int immediate, boolean hasImmediate) {
        recvCq.push(this, -1, wrId, status, opcode, length, immediate, hasImmediate);
    }

    /** Called by a poller when it took a send completion: every request up to {@code ssn} is retired. */
    void retireSendsUpTo(long ssn) {
        if (ssn + 1 > sqRetired) {
            sqRetired = ssn + 1;
        }
    }

    @Override
    public String toString() {
        return "QP " + qpn + " of " + device.name() + " (" + state + ")";
    }
}
