package io.slime4j.shm;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.WcStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The send side of a queue pair (holder of the device's progress lock only: the agent, a poller,
 * or a posting thread publishing its own request). Checks each posted request against the local
 * keys (LOC_PROT_ERR, LOC_LEN_ERR) and publishes it into the ring of the queue pair's shared file,
 * with what the peer needs to reach the local memory; completes requests in order as the peer's
 * "done" word passes them (or fails the one it NAKed); waits {@code rnrTimer} after an RNR NAK and
 * asks again; fails the oldest request with RETRY_EXC_ERR after {@code retryCount} timeouts
 * without progress (backoff doubling up to 32x), or at once when the peer's queue pair, device or
 * process is gone. A "retransmission" here re-rings the peer: the request itself is already in
 * shared memory and cannot be lost.
 *
 * <p>An RDMA WRITE or READ into a region the peer exports, posted while nothing earlier of this
 * queue pair is outstanding, is executed here instead ({@link DirectCopy}) and completes at once;
 * it takes no ring entry. Ring positions therefore trail sequence numbers by the count of such
 * requests ({@code direct}): the outstanding requests are always contiguous in both, because a
 * request is only copied directly when none is outstanding.
 */
final class Requester {
    private final ShmQueuePair qp;
    private final QpFile file;
    private final ShmCounters counters;
    private final QpConfig config;
    private final DirectCopy directCopy;
    private long published;
    private long completed;
    /** Requests executed by {@link DirectCopy}: ring position = sequence number - direct. */
    private long direct;
    private long localFailSsn = -1;
    private WcStatus localFailStatus;
    private long flushedUpTo;
    // progress tracking
    private long seenDone;
    private long seenProgress;
    private long seenNaks;
    private long lastProgressAt;
    private int retries;
    private int naksForHead;
    private long rnrRetryAt;

    Requester(ShmQueuePair qp) {
        this.qp = qp;
        this.file = qp.file;
        this.counters = qp.counters();
        this.config = qp.config;
        this.directCopy = new DirectCopy(qp);
    }

    boolean outstanding() {
        return published > completed || localFailSsn >= 0;
    }

    /** Whether requests were posted that are not yet published (holder of the progress lock). */
    boolean unpublished() {
        return published != qp.sqPosted();
    }

    int doWork(long now) {
        int work = publish();
        work += complete();
        if (qp.state() == io.slime4j.verbs.QpState.ERR) {
            return work;
        }
        if (localFailSsn >= 0 && completed == localFailSsn) {
            fail(localFailStatus);
            return work + 1;
        }
        if (published > completed) {
            work += watch(now);
        } else {
            lastProgressAt = now;
            retries = 0;
        }
        return work;
    }

    /**
     * Publishes what was posted, on the posting thread (progress lock held); false when a duty cycle
     * must do it: the queue pair is not ready to send, the peer is not attached yet (nobody to
     * ring), or a request failed its local checks (the agent completes it in order).
     */
    boolean publishNow() {
        if (qp.state() != io.slime4j.verbs.QpState.RTS || qp.responder.peer() == null || localFailSsn >= 0) {
            return false;
        }
        publish();
        return localFailSsn < 0;
    }

    private int publish() {
        long posted = qp.sqPosted();
        if (published == posted || localFailSsn >= 0) {
            return 0;
        }
        long ringStart = published - direct;
        long packets = 0;
        long bytes = 0;
        long now = System.nanoTime();
        while (published < posted) {
            Wqe w = qp.sendWqe(published);
            WcStatus bad = take(w);
            if (bad != null) {
                localFailSsn = published;
                localFailStatus = bad;
                break;
            }
            long pk = Math.max(1, (w.length + config.mtu() - 1) / config.mtu());
            if (published == completed) {
                WcStatus st = directCopy.tryExecute(w, now); // in order: nothing earlier is outstanding
                if (st != null && st != WcStatus.SUCCESS) { // failed here (its local memory freed): as a local check
                    localFailSsn = published;
                    localFailStatus = st;
                    break;
                }
                if (st == WcStatus.SUCCESS) {
                    packets += pk;
                    bytes += w.length + Layout.E_SGES;
                    w.releaseRegions();
                    if (w.signaled) {
                        qp.completeSend(w, WcStatus.SUCCESS);
                    }
                    published++;
                    completed++;
                    direct++;
                    if (published < posted) {
                        now = System.nanoTime(); // a large copy took a while: a ring request's timer starts after it
                    }
                    continue;
                }
                lastProgressAt = now; // the ring's head request: its timer starts now
            }
            packets += pk;
            bytes += w.length + Layout.E_SGES;
            write(file.entry(published - direct), w);
            published++;
        }
        if (packets > 0) {
            counters.add(Counter.PACKETS_SENT, packets); // once per batch: every add is an atomic update
            counters.add(Counter.BYTES_SENT, bytes);
        }
        long ringTail = published - direct;
        if (ringTail > ringStart) {
            Layout.setRelease(file.segment, Layout.QP_TAIL, ringTail);
            PeerDevice peer = qp.responder.peer();
            if (peer != null) {
                // a Dekker pair with the peer's Responder.unwatchUnlessSent: it sees this tail, or this sees its flag fall
                VarHandle.fullFence();
                if (Layout.getVolatile(file.segment, Layout.QP_WATCHED) != 0) {
                    peer.ring(); // its cycles run this queue pair's ring anyway: wake its agent, no mark
                } else {
                    peer.ring(qp.remoteQpn());
                }
            }
        }
        return 1;
    }

    /** Checks the local entries and takes a use of each region; returns the failure status or null. */
    private WcStatus take(Wqe w) {
        if (w.held != 0) { // an earlier attempt ended by an exception: give its uses back, never take twice
            w.releaseRegions();
        }
        Opcode op = w.opcode;
        if (op.isAtomic() && (w.numSge != 1 || w.sgeLength[0] != 8)) {
            return WcStatus.LOC_LEN_ERR;
        }
        boolean writesLocal = op == Opcode.RDMA_READ || op.isAtomic();
        for (int i = 0; i < w.numSge; i++) {
            ShmRegion r = qp.device.regions().lookup(w.key[i]);
            if (r == null || r.pd != qp.pd || !r.contains(w.address[i], w.sgeLength[i])
                    || (writesLocal && (r.access & AccessFlags.LOCAL_WRITE) == 0) || !r.acquire()) {
                w.releaseRegions();
                return WcStatus.LOC_PROT_ERR;
            }
            w.regions[w.held++] = r;
        }
        return null;
    }

    private static void write(MemorySegment e, Wqe w) {
        e.set(ValueLayout.JAVA_BYTE, Layout.E_OPCODE, (byte) w.opcode.ordinal());
        e.set(ValueLayout.JAVA_SHORT, Layout.E_NUM_SGE, (short) w.numSge);
        e.set(ValueLayout.JAVA_INT, Layout.E_IMM, w.immediate);
        e.set(ValueLayout.JAVA_LONG, Layout.E_SEQ, w.ssn);
        e.set(ValueLayout.JAVA_LONG, Layout.E_RADDR, w.remoteAddress);
        e.set(ValueLayout.JAVA_LONG, Layout.E_RKEY, w.remoteKey);
        e.set(ValueLayout.JAVA_LONG, Layout.E_COMPARE, w.compareAdd);
        e.set(ValueLayout.JAVA_LONG, Layout.E_SWAP, w.swap);
        e.set(ValueLayout.JAVA_LONG, Layout.E_LENGTH, w.length);
        for (int i = 0; i < w.numSge; i++) {
            long s = Layout.E_SGES + i * Layout.SGE_SIZE;
            e.set(ValueLayout.JAVA_LONG, s + Layout.S_ADDR, w.address[i]);
            e.set(ValueLayout.JAVA_LONG, s + Layout.S_LEN, w.sgeLength[i]);
            e.set(ValueLayout.JAVA_LONG, s + Layout.S_KEY, w.key[i]);
            SharedMemory.Allocation a = w.regions[i].shared;
            if (a != null && a.contains(w.address[i], w.sgeLength[i])) {
                e.set(ValueLayout.JAVA_INT, s + Layout.S_FD, a.fd());
                e.set(ValueLayout.JAVA_LONG, s + Layout.S_INODE, a.inode());
                e.set(ValueLayout.JAVA_LONG, s + Layout.S_OFFSET, w.address[i] - a.address());
            } else {
                e.set(ValueLayout.JAVA_INT, s + Layout.S_FD, -1);
            }
        }
    }

    private int complete() {
        long done = Layout.getAcquire(file.segment, Layout.QP_DONE) + direct; // ring position -> sequence number
        if (done == completed) {
            return 0;
        }
        long nakSeq = Layout.getAcquire(file.segment, Layout.QP_NAK_SEQ);
        while (completed < done) {
            Wqe w = qp.sendWqe(completed);
            if (completed - direct == nakSeq) {
                fail(WcStatus.ofOrdinal(file.segment.get(ValueLayout.JAVA_INT, Layout.QP_NAK_STATUS)));
                return 1;
            }
            w.releaseRegions();
            if (w.signaled) {
                qp.completeSend(w, WcStatus.SUCCESS);
            }
            completed++;
            naksForHead = 0;
            rnrRetryAt = 0;
        }
        return 1;
    }

    /** Timers, RNR retries and peer liveness while requests are outstanding. */
    private int watch(long now) {
        Responder r = qp.responder;
        PeerDevice peer = r.peer();
        QpFile peerFile = r.peerFile();
        if ((peer != null && !peer.alive(now)) || (peerFile != null && peerFile.failed())) {
            complete(); // what it finished before it went is still a success
            if (qp.state() != io.slime4j.verbs.QpState.ERR && published > completed) {
                fail(WcStatus.RETRY_EXC_ERR);
            }
            return 1;
        }
        long done = Layout.getAcquire(file.segment, Layout.QP_DONE);
        long progress = Layout.getAcquire(file.segment, Layout.QP_PROGRESS);
        long naks = Layout.getAcquire(file.segment, Layout.QP_RNR_NAKS);
        if (naks != seenNaks) {
            long delta = naks - seenNaks;
            seenNaks = naks;
            counters.add(Counter.RNR_NAKS_RECEIVED, delta);
            naksForHead += (int) delta;
            if (config.rnrRetry() != QpConfig.RNR_RETRY_INFINITE && naksForHead > config.rnrRetry()) {
                fail(WcStatus.RNR_RETRY_EXC_ERR);
                return 1;
            }
            rnrRetryAt = now + config.rnrTimer().toNanos();
        }
        if (done != seenDone || progress != seenProgress) {
            seenDone = done;
            seenProgress = progress;
            lastProgressAt = now;
            retries = 0;
        }
        if (rnrRetryAt != 0) {
            lastProgressAt = now; // the peer answers: waiting for a receive is not silence
            retries = 0;
            if (now - rnrRetryAt >= 0) {
                rnrRetryAt = 0;
                askAgain(peer);
                return 1;
            }
            return 0;
        }
        long timeout = config.ackTimeout().toNanos() * Math.min(1L << Math.min(retries, 5), QpConfig.MAX_BACKOFF);
        if (now - lastProgressAt >= timeout) {
            counters.increment(Counter.TIMEOUTS);
            if (retries >= config.retryCount()) {
                fail(WcStatus.RETRY_EXC_ERR);
                return 1;
            }
            retries++;
            counters.increment(Counter.RETRANSMITS);
            lastProgressAt = now;
            askAgain(peer);
            return 1;
        }
        return 0;
    }

    private void askAgain(PeerDevice peer) {
        Layout.getAndAddLong(file.segment, Layout.QP_RETRY, 1);
        if (peer != null) {
            peer.ring(qp.remoteQpn());
        }
    }

    /** The oldest outstanding request fails with {@code status}; the queue pair fails and flushes. */
    private void fail(WcStatus status) {
        long ssn = completed;
        Wqe w = qp.sendWqe(ssn);
        w.releaseRegions();
        qp.completeSend(w, status);
        completed = ssn + 1;
        flushedUpTo = completed;
        localFailSsn = -1;
        qp.enterError();
    }

    /** Flushes every request not completed yet, and those posted in ERR (progress lock held). */
    int flush() {
        long posted = qp.sqPosted();
        long from = Math.max(completed, flushedUpTo);
        int n = 0;
        for (long ssn = from; ssn < posted; ssn++) {
            Wqe w = qp.sendWqe(ssn);
            w.releaseRegions();
            qp.completeSend(w, WcStatus.WR_FLUSH_ERR);
            n++;
        }
        completed = Math.max(completed, posted);
        published = Math.max(published, posted);
        flushedUpTo = posted;
        localFailSsn = -1;
        return n;
    }
}
