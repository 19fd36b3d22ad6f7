package io.slime4j.endpoint;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.VerbsDevice;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;

/**
 * Layer 4 as the endpoint owns it: one protection domain, one completion queue for everything,
 * the io queue pairs, the meta and data queue pairs of the message path, the control region that
 * holds meta messages, the receive windows and the send-queue credits of the io queue pairs. Built
 * only from the verbs API.
 *
 * <p>Sizing keeps every queue from overflowing without a runtime check: the completion queue holds
 * every request that can be outstanding at once; the meta and data send queues hold one request
 * per message slot (plus {@link EndpointConfig#CREDIT_RESERVE} credit messages); the io send queues
 * are guarded by {@link #sqCredits}, one permit per send-queue entry, taken before posting and given
 * back when a completion covering the entry has been polled (which is what retires it). The io
 * queue pairs signal selectively ({@link IoSendQueue}); meta and data signal every request.
 */
final class Transport {
    /**
     * Receive-queue entries beyond each window. The soft engine publishes a receive completion a
     * moment before it stops counting that receive as posted, so a window entry re-posted straight
     * from its completion may briefly make window + 1 receives; one spare entry absorbs that.
     */
    static final int RQ_SLACK = 1;

    final VerbsDevice device;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair[] io;
    final QueuePair meta;
    final QueuePair data;
    final Semaphore[] sqCredits;
    final MemoryRegion control;
    final RecvWindow metaWindow;
    final RecvWindow dataWindow;
    final RecvWindow[] immWindows;
    private final Arena arena = Arena.ofShared();
    private final List<RecvWindow> windows = new ArrayList<>();

    Transport(VerbsDevice device, EndpointConfig c) {
        this.device = device;
        int metaDepth = c.messageSlots() + EndpointConfig.CREDIT_RESERVE;
        boolean ok = false;
        ProtectionDomain p = null;
        CompletionQueue q = null;
        List<AutoCloseable> made = new ArrayList<>();
        try {
            p = device.allocateProtectionDomain();
            made.add(p);
            q = device.createCompletionQueue((int) EndpointConfig.completionQueueCapacity(c.qps(), c.sendQueueDepth(),
                    c.immWindow(), c.messageSlots()));
            made.add(q);
            QpConfig.Builder base = c.qpTemplate().toBuilder().signalAll(true);
            QpConfig ioConfig = base.sendQueueDepth(c.sendQueueDepth()).recvQueueDepth(c.immWindow() + RQ_SLACK).build();
            ioConfig = ioConfig.toBuilder().signalAll(false).build(); // IoSendQueue signals selectively
            io = new QueuePair[c.qps()];
            sqCredits = new Semaphore[c.qps()];
            for (int i = 0; i < io.length; i++) {
                io[i] = device.createQueuePair(p, ioConfig, q, q);
                made.add(io[i]);
                sqCredits[i] = new Semaphore(c.sendQueueDepth());
            }
            meta = device.createQueuePair(p, base.sendQueueDepth(metaDepth).recvQueueDepth(metaDepth + RQ_SLACK).build(),
                    q, q);
            made.add(meta);
            data = device.createQueuePair(p, base.sendQueueDepth(c.messageSlots())
                    .recvQueueDepth(c.messageSlots() + RQ_SLACK).build(), q, q);
            made.add(data);
            long metaBytes = (long) (c.messageSlots() + metaDepth) * Wire32.META_BYTES;
            control = p.register(arena.allocate(metaBytes, 64), AccessFlags.LOCAL_WRITE);
            made.add(control);
            metaWindow = window(new RecvWindow(RecvWindow.Kind.META, 0, meta, metaDepth, control,
                    (long) c.messageSlots() * Wire32.META_BYTES));
            dataWindow = window(new RecvWindow(RecvWindow.Kind.DATA, 0, data, c.messageSlots(), null, 0));
            immWindows = new RecvWindow[c.qps()];
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
        this.pd = p;
        this.cq = q;
    }

    private RecvWindow window(RecvWindow w) {
        windows.add(w);
        return w;
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

    /**
     * Pre-posts every window (I5), then connects each queue pair to its peer counterpart. Nothing
     * can arrive before the windows are posted: a queue pair receives from RTR on.
     */
    void connect(EndpointInfo peer, EndpointHooks hooks) {
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

    /** Receives missing from all windows together (0 whenever the dispatcher is between completions). */
    int windowsMissing() {
        int missing = 0;
        for (RecvWindow w : windows) {
            missing += w.size - w.posted();
        }
        return missing;
    }

    List<QueuePair> all() {
        List<QueuePair> qps = new ArrayList<>(List.of(io));
        qps.add(meta);
        qps.add(data);
        return qps;
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

    /** Closing: wakes every caller waiting for send-queue credit (it then finds the endpoint closed). */
    void wakeCreditWaiters() {
        for (Semaphore s : sqCredits) {
            s.release(Integer.MAX_VALUE / 2);
        }
    }

    /** Closes the queue pairs, the control region, the completion queue, the domain and the arena. */
    void close() {
        for (QueuePair qp : all()) {
            closeQuietly(qp);
        }
        closeQuietly(control);
        closeQuietly(cq);
        closeQuietly(pd);
        arena.close();
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // best effort while closing
        }
    }
}
