package io.slime4j.shm;

import io.slime4j.verbs.Counter;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.QueueFullException;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.VerbsException;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;

/**
 * A reliable-connected queue pair of an {@link ShmDevice}. Application threads post into bounded
 * send and receive queues (a short lock per queue, the request copied); whichever thread holds the
 * device's progress lock runs the {@link Requester} (which publishes requests into this queue
 * pair's ring in its shared file) and the {@link Responder} (which executes the peer's ring): the
 * posting thread itself publishes when it can take the lock, else the agent does. State changes
 * to ERR are visible at once and flushed under the progress lock.
 */
final class ShmQueuePair implements QueuePair {
    private static final SecureRandom RANDOM = new SecureRandom();

    final ShmDevice device;
    final ShmProtectionDomain pd;
    final QpConfig config;
    final ShmCompletionQueue sendCq;
    final ShmCompletionQueue recvCq;
    private final ShmCounters counters;
    private final int qpn;
    final long token;
    private final int psn;
    final QpFile file;

    private final Wqe[] sq;
    private final Wqe[] rq;
    private final Object sqLock = new Object();
    private final Object rqLock = new Object();
    private volatile long sqPosted;
    private volatile long sqRetired;
    private volatile long rqPosted;
    volatile long rqConsumed;

    final Requester requester;
    final Responder responder;
    private volatile QpState state = QpState.RESET;
    private volatile boolean closed;
    private boolean errorHandled;
    /** When a duty cycle's turn last did work here (holder of the progress lock). */
    private long lastWorkAt = System.nanoTime() - (1L << 40);
    volatile QpInfo remote;

    ShmQueuePair(ShmDevice device, int qpn, ShmProtectionDomain pd, QpConfig config, ShmCompletionQueue sendCq,
                 ShmCompletionQueue recvCq) {
        this.device = device;
        this.qpn = qpn;
        this.pd = pd;
        this.config = config;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        long t;
        do {
            t = RANDOM.nextLong();
        } while (t == 0);
        this.token = t;
        this.psn = config.initialPsn() >= 0 ? (int) config.initialPsn() : RANDOM.nextInt();
        int sqSize = ringSize(config.sendQueueDepth());
        sq = new Wqe[sqSize];
        for (int i = 0; i < sqSize; i++) {
            sq[i] = new Wqe(config.maxSge());
        }
        int rqSize = ringSize(config.recvQueueDepth());
        rq = new Wqe[rqSize];
        for (int i = 0; i < rqSize; i++) {
            rq[i] = new Wqe(config.maxSge());
        }
        this.file = QpFile.create(sqSize, config.maxSge(), token, device.id(), pd.id);
        // registered with the device's counters once what can fail (the ring file) was made
        this.counters = device.countersSet().child();
        this.requester = new Requester(this);
        this.responder = new Responder(this);
    }

    private static int ringSize(int depth) {
        return depth == 1 ? 1 : Integer.highestOneBit(depth - 1) << 1;
    }

    Wqe sendWqe(long ssn) { return sq[(int) (ssn & (sq.length - 1))]; }
    Wqe recvWqe(long n) { return rq[(int) (n & (rq.length - 1))]; }
    long sqPosted() { return sqPosted; }
    long rqPosted() { return rqPosted; }

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
        return new QpInfo(device.address(), qpn, psn, token);
    }

    @Override
    public ShmCounters counters() {
        return counters;
    }

    @Override
    public synchronized void modifyToInit() {
        requireState("modifyToInit", QpState.RESET);
        state = QpState.INIT;
    }

    @Override
    public synchronized void modifyToRtr(QpInfo peer) {
        requireState("modifyToRtr", QpState.INIT);
        if (peer == null) {
            throw new IllegalArgumentException("remote QpInfo must not be null");
        }
        ShmAddress.parse(peer.address()); // a clear error for an address of another wire
        remote = peer;
        file.connectedTo(peer.token());
        state = QpState.RTR;
        device.wakeup(this);
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
            file.markFailed();
            device.wakeup(this);
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
        validate(wr);
        synchronized (sqLock) {
            long posted = sqPosted;
            if (posted - sqRetired >= config.sendQueueDepth()) {
                throw new QueueFullException("send queue of QP " + qpn + " is full (" + config.sendQueueDepth()
                        + " requests not yet retired): poll the send completion queue; with selective signaling,"
                        + " post a signaled request at least every " + config.sendQueueDepth() + " requests");
            }
            sendWqe(posted).load(posted, wr, config.signalAll());
            sqPosted = posted + 1;
        }
        counters.increment(Counter.WR_POSTED);
        if (!device.publishNow(this)) { // straight into the ring and the peer rung, else left to a duty cycle
            device.leaveToCycle(this);
        }
    }

    @Override
    public void postRecv(WorkRequest wr) {
        checkOpen("postRecv");
        if (state == QpState.RESET) {
            throw new VerbsException("postRecv on QP " + qpn + " of " + device.name()
                    + " needs state INIT or later, but it is RESET");
        }
        validate(wr);
        synchronized (rqLock) {
            long posted = rqPosted;
            if (posted - rqConsumed >= config.recvQueueDepth()) {
                throw new QueueFullException("receive queue of QP " + qpn + " is full (" + config.recvQueueDepth()
                        + " receives posted)");
            }
            recvWqe(posted).load(posted, wr, true);
            rqPosted = posted + 1;
        }
        counters.increment(Counter.RECV_WR_POSTED);
        if (state == QpState.ERR) {
            // flushed by a duty cycle. Otherwise nothing runs for a new receive: a request it was missing
            // was RNR-NAKed and comes back with the requester's retry, which marks this queue pair (a
            // mark and a ring per receive cost a receiver of small messages two atomics on shared
            // lines). A Dekker pair with modifyToError: rqPosted is written, then the state read.
            device.wakeup(this);
        }
    }

    private void validate(WorkRequest wr) {
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
        if (closed) {
            return;
        }
        closed = true;
        modifyToError();
        device.destroyQueuePair(this);
    }

    // ---------------------------------------------------------------- agent side

    /** One duty cycle (holder of the device's progress lock). */
    int doWork(long now) {
        QpState s = state;
        if (s == QpState.ERR) {
            return handleError();
        }
        if (s != QpState.RTR && s != QpState.RTS) {
            return 0;
        }
        int work = responder.doWork(now);
        if (s == QpState.RTS) {
            work += requester.doWork(now);
        }
        return work;
    }

    /** Fails the queue pair now (holder of the progress lock) and flushes. */
    void enterError() {
        state = QpState.ERR;
        file.markFailed();
        handleError();
    }

    int handleError() {
        if (!errorHandled) {
            errorHandled = true;
            file.markFailed();
        }
        return requester.flush() + responder.flush();
    }

    /** Whether the queue pair still has work the agent must do (timers). */
    boolean busy() {
        return state != QpState.ERR && requester.outstanding();
    }

    /**
     * How long a queue pair whose responder is watched stays in the duty cycles after its last turn
     * with work: a pair that streams (its peer publishes every few microseconds, a busy-polling
     * waiter cycles far more often) stays in and watched, and is neither dropped nor marked again per
     * message. Short, so that pairs with sporadic traffic leave the cycles soon.
     */
    static final long HOLD_NANOS = 100_000;

    /**
     * After a duty cycle's turn that did {@code work} at {@code now} (holder of the progress lock):
     * whether the next cycle runs this queue pair though nobody marks it ready ({@link ReadyMask}) —
     * it did work, it needs turns of its own ({@link #wantsTurn}), its responder is watched and its
     * peer sent within {@link #HOLD_NANOS}, or requests came while the watch was being withdrawn.
     */
    boolean staysAfterTurn(int work, long now) {
        if (work > 0) {
            lastWorkAt = now;
            return true;
        }
        return wantsTurn() || (responder.watching() && now - lastWorkAt < HOLD_NANOS) || responder.unwatchUnlessSent();
    }

    /**
     * Whether the queue pair needs the next duty cycle's turn though nobody marks it ready
     * ({@link ReadyMask}; holder of the progress lock): requests outstanding (their timers, the
     * peer's liveness and the peer's answers are watched; the peer's responder does not mark), requests
     * posted and not yet published, or a peer not attached yet (tried again at most every
     * millisecond, on the cycles that run). Everything else that gives it work marks it.
     */
    private boolean wantsTurn() {
        QpState s = state;
        if (s != QpState.RTR && s != QpState.RTS) {
            return false;
        }
        return requester.outstanding() || requester.unpublished() || responder.peerFile() == null;
    }

    /** The number of the peer's queue pair this one is connected to (set from RTR on). */
    int remoteQpn() {
        return remote.qpn();
    }

    void completeSend(Wqe w, WcStatus status) {
        sendCq.push(this, w.ssn, w.wrId, status, w.opcode.completionOpcode(), (int) w.length, 0, false);
    }

    void completeRecv(long wrId, WcStatus status, WcOpcode opcode, int length, int immediate, boolean hasImmediate) {
        recvCq.push(this, -1, wrId, status, opcode, length, immediate, hasImmediate);
    }

    /** A poller took a send completion: every request up to {@code ssn} is retired. */
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
