package io.slime4j.shm;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.QpState;
import io.slime4j.verbs.WcOpcode;
import io.slime4j.verbs.WcStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The receive side of a queue pair (holder of the device's progress lock only): executes the peer's ring in order, once
 * each. Checks the remote key, protection domain, bounds (without overflow) and access flag of
 * every one-sided request (REM_ACCESS_ERR, the target untouched; a misaligned atomic is
 * REM_INV_REQ_ERR), then copies once, straight between the two sides' registered memory. SENDs and
 * immediates consume receives in order; without one it NAKs (RNR) and waits until the requester
 * asks again. A failure is NAKed and ends the execution of that ring.
 */
final class Responder {
    private static final Opcode[] OPCODES = Opcode.values();
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    private final ShmQueuePair qp;
    private final ShmCounters counters;
    private volatile PeerDevice peer; // read by posting threads before they publish
    private QpFile peerFile;
    private PeerMemory memory;
    private long head;
    private boolean stopped;
    private boolean rnrBlocked;
    private boolean failAfterNak;
    /** This side told the peer's requester that its duty cycles run this queue pair every cycle ({@link #watch}). */
    private boolean watching;
    private volatile long unwatched; // written under the progress lock, read by tests
    private long rnrToken;
    private long attachTriedAt;
    private final MemorySegment scratch = Arena.global().allocate(8, 8);

    Responder(ShmQueuePair qp) {
        this.qp = qp;
        this.counters = qp.counters();
    }

    PeerDevice peer() {
        return peer;
    }

    QpFile peerFile() {
        return peerFile;
    }

    /** Maps the peer device and queue pair file; retried at most every millisecond while it fails. */
    private boolean attach(long now) {
        if (peerFile != null) {
            return true;
        }
        QpInfo remote = qp.remote;
        if (remote == null || (attachTriedAt != 0 && now - attachTriedAt < 1_000_000)) {
            return false;
        }
        attachTriedAt = now;
        try {
            PeerDevice p = qp.device.peer(remote.address());
            QpFile f = qp.device.peerQpFile(p, remote.qpn(), remote.token());
            peer = p;
            peerFile = f;
            memory = new PeerMemory(p, qp.device.mappings(), this::progress);
            // requests this side published before it knew the peer rang and marked nobody: mark the peer's queue
            // pair now, so that its responder looks at them without waiting for a sweep
            p.ring(qp.remoteQpn());
            return true;
        } catch (RuntimeException e) {
            return false; // unreachable for now: the requester's timers decide
        }
    }

    private void progress() {
        Layout.getAndAddLong(peerFile.segment, Layout.QP_PROGRESS, 1);
    }

    /** Requests one turn of {@link #doWork} executes at most. */
    static final int TURN_REQUESTS = 64;
    /** Bytes after which a turn of {@link #doWork} ends (the request that passes it still runs whole). */
    static final long TURN_BYTES = ShmDevice.PREFERRED_REQUEST_BYTES;

    /** Whether a turn that executed {@code requests} requests of {@code bytes} in all may take the next one. */
    static boolean mayContinue(int requests, long bytes) {
        return requests < TURN_REQUESTS && bytes < TURN_BYTES;
    }

    int doWork(long now) {
        if (!attach(now) || stopped || peerFile.failed()) {
            return 0;
        }
        MemorySegment ps = peerFile.segment;
        if (rnrBlocked) {
            if (Layout.getAcquire(ps, Layout.QP_RETRY) == rnrToken) {
                return 0;
            }
            rnrBlocked = false;
        }
        long tail = Layout.getAcquire(ps, Layout.QP_TAIL);
        int n = 0;
        long bytes = 0;
        // a turn ends after 64 requests or a preferred request's worth of bytes: it runs under the
        // device's progress lock, which every other queue pair of the device waits for meanwhile
        while (head < tail && mayContinue(n, bytes) && !stopped) {
            MemorySegment e = peerFile.entry(head);
            bytes += Math.max(0, e.get(ValueLayout.JAVA_LONG, Layout.E_LENGTH));
            WcStatus st;
            try {
                st = execute(e);
            } catch (PeerMemory.PeerAccessException | IllegalStateException | IndexOutOfBoundsException ex) {
                st = WcStatus.REM_OP_ERR;
            }
            if (st == null) { // RNR
                rnrToken = Layout.getAcquire(ps, Layout.QP_RETRY);
                rnrBlocked = true;
                Layout.getAndAddLong(ps, Layout.QP_RNR_NAKS, 1);
                counters.increment(Counter.RNR_NAKS_SENT);
                break;
            }
            if (st != WcStatus.SUCCESS) {
                ps.set(ValueLayout.JAVA_INT, Layout.QP_NAK_STATUS, st.ordinal());
                Layout.setRelease(ps, Layout.QP_NAK_SEQ, head);
                stopped = true;
                counters.increment(Counter.NAKS_SENT);
            }
            head++;
            Layout.setRelease(ps, Layout.QP_DONE, head);
            n++;
        }
        if (failAfterNak) {
            failAfterNak = false;
            qp.enterError();
        }
        if (n > 0 && !watching) {
            watch();
        }
        if (n > 0 || rnrBlocked) {
            // no ready mark: the peer's requester has requests outstanding, so its duty cycles run it anyway
            // (ShmQueuePair.staysAfterTurn); only its agent may be asleep
            peer.ring();
        }
        return n;
    }

    /**
     * Tells the peer's requester that this device's duty cycles run this queue pair every cycle
     * while it keeps sending, so that its publishes need no ready mark (the mark's atomic on a line
     * both processes write, and this side's swap that takes it, would cost a streaming pair per
     * message).
     */
    private void watch() {
        Layout.setRelease(peerFile.segment, Layout.QP_WATCHED, 1);
        watching = true;
    }

    /** Whether the peer's requester was told that this queue pair's ring is run every cycle. */
    boolean watching() {
        return watching;
    }

    /** Times {@link #unwatchUnlessSent} withdrew the watch (for tests). */
    long unwatched() {
        return unwatched;
    }

    /**
     * Before the duty cycles stop running this queue pair: withdraws {@link #watch} and says whether
     * requests were published meanwhile, unmarked (then it stays, watched). A Dekker pair with
     * {@code Requester.publish}, which releases its tail, fences and then reads the flag: either it
     * sees the flag fall and marks, or this sees its tail.
     */
    boolean unwatchUnlessSent() {
        if (!watching) {
            return false;
        }
        MemorySegment ps = peerFile.segment;
        Layout.setVolatile(ps, Layout.QP_WATCHED, 0);
        VarHandle.fullFence();
        QpState s = qp.state();
        boolean executes = (s == QpState.RTR || s == QpState.RTS) && !stopped
                && !rnrBlocked && !peerFile.failed(); // else the requests wait for something else, marked or not
        if (executes && Layout.getAcquire(ps, Layout.QP_TAIL) > head) {
            Layout.setRelease(ps, Layout.QP_WATCHED, 1);
            return true;
        }
        watching = false;
        unwatched++;
        return false;
    }

    /** Withdraws {@link #watch} outright (the queue pair executes nothing more). */
    private void unwatch() {
        Layout.setVolatile(peerFile.segment, Layout.QP_WATCHED, 0);
        watching = false;
    }

    /** Executes one request: SUCCESS, a failure status, or null for "no receive posted" (RNR). */
    private WcStatus execute(MemorySegment e) {
        Opcode op = OPCODES[e.get(ValueLayout.JAVA_BYTE, Layout.E_OPCODE)];
        long length = e.get(ValueLayout.JAVA_LONG, Layout.E_LENGTH);
        if (length < 0) { // the peer's word: no request has a negative length (nothing is copied or completed)
            return WcStatus.REM_INV_REQ_ERR;
        }
        long raddr = e.get(ValueLayout.JAVA_LONG, Layout.E_RADDR);
        long rkey = e.get(ValueLayout.JAVA_LONG, Layout.E_RKEY);
        counters.add(Counter.PACKETS_RECEIVED, Math.max(1, (length + qp.config.mtu() - 1) / qp.config.mtu()));
        counters.add(Counter.BYTES_RECEIVED, length + Layout.E_SGES);
        return switch (op) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> write(op, e, raddr, rkey, length);
            case RDMA_READ -> read(e, raddr, rkey, length);
            case SEND, SEND_WITH_IMM -> send(op, e, length);
            case ATOMIC_FETCH_ADD, ATOMIC_CMP_SWAP -> atomic(op, e, raddr, rkey);
        };
    }

    private ShmRegion target(long raddr, long rkey, long length, int flag) {
        ShmRegion r = qp.device.regions().lookup(rkey);
        if (r == null || r.pd != qp.pd || (r.access & flag) == 0 || !r.contains(raddr, length)) {
            return null;
        }
        return r.acquire() ? r : null;
    }

    private WcStatus write(Opcode op, MemorySegment e, long raddr, long rkey, long length) {
        boolean imm = op == Opcode.RDMA_WRITE_WITH_IMM;
        ShmRegion r = null;
        if (length > 0) {
            r = target(raddr, rkey, length, AccessFlags.REMOTE_WRITE);
            if (r == null) {
                return WcStatus.REM_ACCESS_ERR;
            }
        }
        try {
            if (imm && qp.rqConsumed == qp.rqPosted()) {
                return null;
            }
            if (r != null) {
                memory.read(e, 0, r.segment, raddr - r.address(), length);
            }
        } finally {
            if (r != null) {
                r.release();
            }
        }
        if (imm) {
            long wrId = qp.recvWqe(qp.rqConsumed).wrId;
            consume();
            qp.completeRecv(wrId, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, (int) length,
                    e.get(ValueLayout.JAVA_INT, Layout.E_IMM), true);
        }
        return WcStatus.SUCCESS;
    }

    private WcStatus read(MemorySegment e, long raddr, long rkey, long length) {
        if (length == 0) {
            return WcStatus.SUCCESS;
        }
        ShmRegion r = target(raddr, rkey, length, AccessFlags.REMOTE_READ);
        if (r == null) {
            return WcStatus.REM_ACCESS_ERR;
        }
        try {
            memory.write(r.segment, raddr - r.address(), length, e, 0);
        } finally {
            r.release();
        }
        return WcStatus.SUCCESS;
    }

    private WcStatus atomic(Opcode op, MemorySegment e, long raddr, long rkey) {
        ShmRegion r = target(raddr, rkey, 8, AccessFlags.REMOTE_ATOMIC);
        if (r == null) {
            return WcStatus.REM_ACCESS_ERR;
        }
        try {
            if ((raddr & 7) != 0) {
                return WcStatus.REM_INV_REQ_ERR;
            }
            MemorySegment word = r.slice(raddr, 8);
            long a = e.get(ValueLayout.JAVA_LONG, Layout.E_COMPARE);
            long old = op == Opcode.ATOMIC_FETCH_ADD
                    ? (long) WORD.getAndAdd(word, 0L, a)
                    : (long) WORD.compareAndExchange(word, 0L, a, e.get(ValueLayout.JAVA_LONG, Layout.E_SWAP));
            scratch.set(ValueLayout.JAVA_LONG, 0, old);
            memory.write(scratch, 0, scratch.byteSize(), e, 0);
        } finally {
            r.release();
        }
        return WcStatus.SUCCESS;
    }

    private WcStatus send(Opcode op, MemorySegment e, long length) {
        if (qp.rqConsumed == qp.rqPosted()) {
            return null;
        }
        Wqe recv = qp.recvWqe(qp.rqConsumed);
        long capacity = 0;
        ShmRegion[] regions = recv.regions;
        int held = 0;
        WcStatus local = null;
        for (int i = 0; i < recv.numSge; i++) {
            ShmRegion r = qp.device.regions().lookup(recv.key[i]);
            if (r == null || r.pd != qp.pd || (r.access & AccessFlags.LOCAL_WRITE) == 0
                    || !r.contains(recv.address[i], recv.sgeLength[i]) || !r.acquire()) {
                local = WcStatus.LOC_PROT_ERR;
                break;
            }
            regions[held++] = r;
            capacity += recv.sgeLength[i];
        }
        try {
            if (local == null && length > capacity) {
                local = WcStatus.LOC_LEN_ERR;
            }
            if (local != null) {
                long wrId = recv.wrId;
                consume();
                qp.completeRecv(wrId, local, WcOpcode.RECV, 0, 0, false);
                failAfterNak = true; // the NAK must be visible before this queue pair's failure
                return local == WcStatus.LOC_LEN_ERR ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_OP_ERR;
            }
            long offset = 0;
            for (int i = 0; i < recv.numSge && offset < length; i++) {
                long piece = Math.min(recv.sgeLength[i], length - offset);
                memory.read(e, offset, regions[i].segment, recv.address[i] - regions[i].address(), piece);
                offset += piece;
            }
        } finally {
            for (int i = 0; i < held; i++) {
                regions[i].release();
                regions[i] = null;
            }
        }
        long wrId = recv.wrId;
        consume();
        boolean imm = op == Opcode.SEND_WITH_IMM;
        qp.completeRecv(wrId, WcStatus.SUCCESS, WcOpcode.RECV, (int) length,
                imm ? e.get(ValueLayout.JAVA_INT, Layout.E_IMM) : 0, imm);
        return WcStatus.SUCCESS;
    }

    /**
     * Gives the oldest receive's slot back to the posting threads: once {@code rqConsumed} passes
     * it, {@code postRecv} may fill it with the next receive, so everything the completion needs
     * is read from the slot first.
     */
    private void consume() {
        qp.rqConsumed++;
    }

    /** Flushes every receive not consumed (progress lock held, queue pair in ERR). */
    int flush() {
        if (watching) { // an ERR queue pair executes nothing more: the peer marks again (and fails on the state)
            unwatch();
        }
        int n = 0;
        long posted = qp.rqPosted();
        while (qp.rqConsumed < posted) {
            long wrId = qp.recvWqe(qp.rqConsumed).wrId;
            consume();
            qp.completeRecv(wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, false);
            n++;
        }
        return n;
    }
}

