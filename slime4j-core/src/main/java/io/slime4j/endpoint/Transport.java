package io.slime4j.endpoint;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Layer 4 as the endpoint owns it: per rail (device) one protection domain and one completion
 * queue; the io queue pairs (lanes), lane {@code i} on rail {@code i % rails}; the meta and data
 * queue pairs of the message path and the control region that holds meta messages, on rail 0; the
 * receive windows. Built only from the verbs API.
 *
 * <p>Sizing keeps every queue from overflowing without a runtime check: the completion queue holds
 * every request that can be outstanding at once; the meta and data send queues hold one request
 * per message slot (plus {@link EndpointConfig#CREDIT_RESERVE} credit messages); the io send queues
 * are guarded by the credits of their {@link IoSendQueue} (the one owner of them), one per
 * send-queue entry, taken before posting and given back when a completion covering the entry has
 * been polled. The io queue pairs signal selectively; meta and data signal every request.
 */
final class Transport {
    /**
     * Receive-queue entries beyond each window. The soft engine publishes a receive completion a
     * moment before it stops counting that receive as posted, so a window entry re-posted straight
     * from its completion may briefly make window + 1 receives; one spare entry absorbs that.
     */
    static final int RQ_SLACK = 1;

    /** Meta send-queue entries (and rail-0 completions) kept for the one outstanding keepalive probe. */
    static final int KEEPALIVE_RESERVE = 1;

    /** The devices, one per rail; rail 0 also carries the message queue pairs. */
    final VerbsDevice[] devices;
    final ProtectionDomain[] pds;
    final CompletionQueue[] cqs;
    /** Rail 0's device. */
    final VerbsDevice device;
    /** The rail of each lane. */
    final int[] laneRail;
    /** The io queue pair of each lane; a lane's entry is replaced when {@link LaneRecovery} re-establishes it. */
    final QueuePair[] io;
    /** A lane's replacement queue pair while it is being connected, else null. */
    private final QueuePair[] next;
    private final QpConfig ioConfig;
    private final int immWindowSize;
    /** The peer's info, from {@link #connect}. */
    private volatile EndpointInfo peer;
    final QueuePair meta;
    final QueuePair data;
    final MemoryRegion control;
    final RecvWindow metaWindow;
    final RecvWindow dataWindow;
    final RecvWindow[] immWindows;
    /** The data window's bounce buffers (eager messages land there), or null when eager messages are off. */
    final MemoryRegion bounce;
    /** Each lane's imm window before its last re-establishment (its receives still complete, flushed). */
    private final RecvWindow[] retiredImm;
    /** Offset in {@link #control} of the lane-recovery messages: two 32-byte buffers per lane. */
    final long laneMessageBase;
    private final Arena arena = Arena.ofShared();
    private final List<RecvWindow> windows = new ArrayList<>();
    /** Lanes taken out of rotation: their windows no longer count as missing. */
    private final IntPredicate deadLane;

    Transport(List<VerbsDevice> rails, EndpointConfig c, IntPredicate deadLane) {
        this.deadLane = deadLane;
        int nRails = rails.size();
        this.devices = rails.toArray(new VerbsDevice[0]);
        this.pds = new ProtectionDomain[nRails];
        this.cqs = new CompletionQueue[nRails];
        int metaDepth = WindowSizes.metaWindow(c.messageSlots(), c.qps());
        boolean ok = false;
        List<AutoCloseable> made = new ArrayList<>();
        try {
            laneRail = new int[c.qps()];
            int[] lanesOn = new int[nRails];
            for (int i = 0; i < laneRail.length; i++) {
                laneRail[i] = i % nRails;
                lanesOn[laneRail[i]]++;
            }
            for (int r = 0; r < nRails; r++) {
                pds[r] = devices[r].allocateProtectionDomain();
                made.add(pds[r]);
                cqs[r] = devices[r].createCompletionQueue((int) (WindowSizes.completionQueue(
                        Math.max(1, lanesOn[r]), c.sendQueueDepth(), c.immWindow(), r == 0 ? c.messageSlots() : 0)
                        + (r == 0 ? WindowSizes.railZeroExtra(c) : 0)));
                made.add(cqs[r]);
            }
            ioConfig = c.qpTemplate().toBuilder().signalAll(false) // IoSendQueue signals selectively
                    .sendQueueDepth(c.sendQueueDepth()).recvQueueDepth(c.immWindow() + RQ_SLACK).build();
            QpConfig.Builder base = c.qpTemplate().toBuilder().signalAll(true);
            io = new QueuePair[c.qps()];
            next = new QueuePair[c.qps()];
            immWindowSize = c.immWindow();
            for (int i = 0; i < io.length; i++) {
                int r = laneRail[i];
                io[i] = devices[r].createQueuePair(pds[r], ioConfig, cqs[r], cqs[r]);
                made.add(io[i]);
            }
            meta = devices[0].createQueuePair(pds[0], base.sendQueueDepth(metaDepth + KEEPALIVE_RESERVE)
                    .recvQueueDepth(metaDepth + RQ_SLACK).build(), cqs[0], cqs[0]);
            made.add(meta);
            int dataDepth = WindowSizes.dataWindow(c);
            data = devices[0].createQueuePair(pds[0], base.sendQueueDepth(2 * c.messageSlots()) // data and a notice per send slot
                    .recvQueueDepth(dataDepth + RQ_SLACK).build(), cqs[0], cqs[0]);
            made.add(data);
            laneMessageBase = (long) (c.messageSlots() + metaDepth) * Wire32.META_BYTES;
            long metaBytes = laneMessageBase + 2L * c.qps() * Wire32.META_BYTES;
            control = pds[0].register(arena.allocate(metaBytes, 64), AccessFlags.LOCAL_WRITE);
            made.add(control);
            metaWindow = window(new RecvWindow(RecvWindow.Kind.META, 0, meta, metaDepth, control,
                    (long) c.messageSlots() * Wire32.META_BYTES));
            if (c.eagerThreshold() > 0) {
                bounce = pds[0].register(arena.allocate((long) dataDepth * c.eagerThreshold(), 64), AccessFlags.LOCAL_WRITE);
                made.add(bounce);
            } else {
                bounce = null;
            }
            dataWindow = window(new RecvWindow(RecvWindow.Kind.DATA, 0, data, dataDepth, bounce, 0,
                    c.eagerThreshold()));
            immWindows = new RecvWindow[c.qps()];
            retiredImm = new RecvWindow[c.qps()];
            for (int i = 0; i < io.length; i++) {
                immWindows[i] = window(new RecvWindow(RecvWindow.Kind.IMM, i, io[i], c.immWindow(), null, 0));
            }
            ok = true;
        } finally {
            if (!ok) {
                for (int i = made.size() - 1; i >= 0; i--) {
                    closeQuietly(made.get(i));
                }
                arena.close();
            }
        }
        this.device = devices[0];
    }

    private RecvWindow window(RecvWindow w) {
        windows.add(w);
        return w;
    }

    /** The rail of window {@code w}: its lane's for an imm window, rail 0 for the message windows. */
    private int railOf(RecvWindow w) {
        return w.kind == RecvWindow.Kind.IMM ? laneRail[w.qpIndex] : 0;
    }

    int rails() {
        return devices.length;
    }

    /**
     * The smallest {@link VerbsDevice#preferredRequestBytes()} of the rails (a request may go to
     * any); a device answering 0 or less counts as {@link VerbsDevice#DEFAULT_REQUEST_BYTES}.
     */
    int preferredRequestBytes() {
        int min = Integer.MAX_VALUE;
        for (VerbsDevice d : devices) {
            int p = d.preferredRequestBytes();
            min = Math.min(min, p > 0 ? p : VerbsDevice.DEFAULT_REQUEST_BYTES);
        }
        return min;
    }

    /** Whether rail {@code r} has anything to dispatch (a lane, or the message queue pairs). */
    boolean railInUse(int r) {
        return r == 0 || r < io.length;
    }

    /** Offset in the control region of recv slot meta buffers (the first bytes). */
    static long recvMetaBase() {
        return 0;
    }

    List<QpInfo> ioInfo() {
        List<QpInfo> infos = new ArrayList<>(io.length);
        for (QueuePair qp : io) {
            infos.add(qp.localInfo());
        }
        return infos;
    }

    List<String> railAddresses() {
        List<String> out = new ArrayList<>(devices.length);
        for (VerbsDevice d : devices) {
            out.add(d.address());
        }
        return out;
    }

    /**
     * Pre-posts every window (I5), then connects each queue pair to its peer counterpart. Nothing
     * can arrive before the windows are posted: a queue pair receives from RTR on.
     */
    void connect(EndpointInfo peer, EndpointHooks hooks) {
        this.peer = peer;
        for (QueuePair qp : all()) {
            qp.modifyToInit();
        }
        for (RecvWindow w : windows) {
            w.prePost(Math.min(w.size, hooks.prePosted(w.kind, w.size)));
        }
        for (int i = 0; i < io.length; i++) {
            io[i].connect(peer.ioQps().get(i));
        }
        meta.connect(peer.metaQp());
        data.connect(peer.dataQp());
    }

    /** Receives missing from the windows of live lanes, all rails (0 whenever the dispatchers are between completions). */
    int windowsMissing() {
        return windowsMissing(-1);
    }

    /** As {@link #windowsMissing()}, only the windows of rail {@code rail} (all rails for -1). */
    int windowsMissing(int rail) {
        int missing = 0;
        IntPredicate dead = deadLane;
        List<RecvWindow> ws;
        synchronized (windows) {
            ws = List.copyOf(windows);
        }
        for (int i = 0; i < ws.size(); i++) {
            RecvWindow w = ws.get(i);
            if ((rail < 0 || railOf(w) == rail) && !(w.kind == RecvWindow.Kind.IMM && dead.test(w.qpIndex))) {
                missing += w.size - w.posted();
            }
        }
        return missing;
    }

    List<QueuePair> all() {
        List<QueuePair> qps = new ArrayList<>(List.of(io));
        synchronized (next) {
            for (QueuePair n : next) {
                if (n != null) {
                    qps.add(n);
                }
            }
        }
        qps.add(meta);
        qps.add(data);
        return qps;
    }

    /** The peer's info given to {@link #connect}, or null before. */
    EndpointInfo peer() {
        return peer;
    }

    /**
     * Lane recovery, step 1: a fresh queue pair for lane {@code q} on its rail, in INIT, with a full
     * imm window pre-posted on it (it becomes the lane's imm window at once: receives of the old
     * queue pair are no longer re-posted). Returns its info for the peer.
     */
    QpInfo prepareLane(int q) {
        int r = laneRail[q];
        QueuePair qp = devices[r].createQueuePair(pds[r], ioConfig, cqs[r], cqs[r]);
        try {
            qp.modifyToInit();
            RecvWindow w = new RecvWindow(RecvWindow.Kind.IMM, q, qp, immWindowSize, null, 0);
            w.prePost(immWindowSize);
            synchronized (next) {
                closeQuietly(next[q]);
                next[q] = qp;
            }
            synchronized (windows) {
                windows.set(windows.indexOf(immWindows[q]), w);
                retiredImm[q] = immWindows[q];
                immWindows[q] = w;
            }
            return qp.localInfo();
        } catch (RuntimeException e) {
            closeQuietly(qp);
            throw e;
        }
    }

    /**
     * Lane recovery, step 2: connects lane {@code q}'s fresh queue pair to the peer's (RTR, RTS) and
     * moves the old one to ERR, so that what is still posted on it flushes.
     */
    void connectLane(int q, QpInfo remote) {
        fresh(q).connect(remote);
        try {
            io[q].modifyToError();
        } catch (RuntimeException ignored) {
            // closed already
        }
    }

    /** Lane {@code q}'s fresh queue pair while it is being re-established, else null. */
    QueuePair fresh(int q) {
        synchronized (next) {
            return next[q];
        }
    }

    /**
     * Lane recovery, step 3: the fresh queue pair becomes lane {@code q}'s (its {@link IoSendQueue}
     * already posts there); returns the old one, for {@link #retire}.
     */
    QueuePair adoptLane(int q) {
        synchronized (next) {
            QueuePair old = io[q];
            io[q] = next[q];
            next[q] = null;
            return old;
        }
    }

    /** Lane {@code q}'s imm window before its last re-establishment, or null. */
    RecvWindow retiredImmWindow(int q) {
        synchronized (windows) {
            return retiredImm[q];
        }
    }

    /** The current imm window of lane {@code q} (replaced when the lane is re-established). */
    RecvWindow immWindow(int q) {
        synchronized (windows) {
            return immWindows[q];
        }
    }

    /** Drops lane {@code q}'s fresh queue pair, if any (recovery abandoned). */
    void discardLane(int q) {
        synchronized (next) {
            closeQuietly(next[q]);
            next[q] = null;
        }
    }

    /** Moves a replaced queue pair to ERR and destroys it (its flushes still arrive, with its qpn). */
    static void retire(QueuePair old) {
        try {
            old.modifyToError();
        } catch (RuntimeException ignored) {
            // closing anyway
        }
        closeQuietly(old);
    }

    /**
     * Posts a keepalive probe: a signaled zero-length RDMA write on the meta queue pair, which the
     * peer's responder acknowledges without a key check, a memory access or a receive; its one
     * send-queue entry is {@link #KEEPALIVE_RESERVE}. Throws if the queue pair refuses it.
     */
    void probe(long wrId) {
        WorkRequest wr = new WorkRequest().wrId(wrId).opcode(Opcode.RDMA_WRITE).signaled(true).remote(0, 0);
        meta.postSend(wr);
    }

    /** Moves every queue pair to ERR: everything outstanding completes with WR_FLUSH_ERR. */
    void flush() {
        for (QueuePair qp : all()) {
            try {
                qp.modifyToError();
            } catch (RuntimeException ignored) {
                // closing anyway
            }
        }
    }

    /** Closes the queue pairs, the control region, the completion queues, the domains and the arena. */
    void close() {
        for (QueuePair qp : all()) {
            closeQuietly(qp);
        }
        closeQuietly(control);
        closeQuietly(bounce);
        for (int r = 0; r < devices.length; r++) {
            closeQuietly(cqs[r]);
            closeQuietly(pds[r]);
        }
        arena.close();
    }

    static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // best effort while closing
        }
    }
}
