package io.slime4j.endpoint;

import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.CompletionQueueOverflowException;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import java.util.concurrent.TimeUnit;

/**
 * A dispatch thread of the endpoint, one per rail (rail 0's also handles the message path): blocks in {@link io.slime4j.verbs.CompletionQueue#await}
 * with a bounded timeout (no busy spin), decodes each completion's wrId ({@link WrIds}) and hands it
 * to its path. It runs only endpoint code: it fires op signals and hands
 * {@link java.util.concurrent.CompletableFuture} completions to the completion executor, so no
 * user code ever runs here. An exception in one completion is counted and logged; the loop goes on.
 */
final class Dispatcher implements Runnable {
    private static final int BATCH = 256;

    private final EndpointCore core;
    private final IoPath io;
    private final MessagePath messages;
    private final ImmRecvPath imm;
    private final WorkCompletion[] batch = WorkCompletion.array(BATCH);
    private final Thread thread;
    private final long pollNanos;
    private final int rail;
    private final CompletionQueue cq;
    private volatile boolean running = true;

    Dispatcher(EndpointCore core, IoPath io, MessagePath messages, ImmRecvPath imm, int rail) {
        this.rail = rail;
        this.cq = core.transport.cqs[rail];
        this.core = core;
        this.io = io;
        this.messages = messages;
        this.imm = imm;
        this.pollNanos = core.config.pollTimeout().toNanos();
        this.thread = Thread.ofPlatform().daemon().name("slime4j-" + core.name + "-dispatch"
                + (rail == 0 ? "" : "-rail" + rail)).unstarted(this);
    }

    void start() {
        thread.start();
    }

    boolean isDispatchThread() {
        return Thread.currentThread() == thread;
    }

    Thread thread() {
        return thread;
    }

    /** The dispatch loop. */
    @Override
    public void run() {
        while (running) {
            int n;
            try {
                n = cq.await(batch, pollNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                continue; // stop() interrupts; the loop condition decides
            } catch (CompletionQueueOverflowException e) {
                core.markFailed("completion queue overflowed: " + e.getMessage());
                core.tracker.cancelAll("endpoint " + core.name + " failed: completion queue overflow");
                return;
            } catch (RuntimeException e) {
                core.stats.dispatchErrors.increment();
                EndpointCore.log().error("endpoint {}: polling the completion queue failed", core.name, e);
                continue;
            }
            for (int i = 0; i < n; i++) {
                dispatch(batch[i]);
            }
        }
    }

    private void dispatch(WorkCompletion wc) {
        if (!wc.isSuccess() && wc.status() != WcStatus.WR_FLUSH_ERR && !core.isClosing()
                && !laneFailed(wc)) {
            // a failed request moves its queue pair to ERR (the verbs contract): a message queue pair
            // (or the last live lane) failing ends the endpoint
            core.markFailed("queue pair " + wc.qpn() + " failed a request with " + wc.status()
                    + (wc.status() == WcStatus.RETRY_EXC_ERR ? " (the peer stopped answering)" : ""));
        }
        try {
            switch (WrIds.kind(wc.wrId())) {
                case WrIds.IO -> io.onCompletion(wc);
                case WrIds.MSG_DATA -> messages.onDataSent(wc);
                case WrIds.META_SEND -> messages.onMetaSent(wc);
                case WrIds.CREDIT_SEND -> imm.onCreditSent(wc);
                case WrIds.META_WINDOW -> messages.onMetaWindow(wc);
                case WrIds.DATA_WINDOW -> messages.onDataWindow(wc);
                case WrIds.IMM_WINDOW -> imm.onImmWindow(wc);
                default -> core.protocolError("completion with a foreign wrId: " + wc);
            }
        } catch (RuntimeException e) {
            core.stats.dispatchErrors.increment();
            if (core.stats.dispatchErrors.sum() <= 10) {
                EndpointCore.log().error("endpoint {}: dispatching {} failed", core.name, wc, e);
            }
        } catch (Error e) {
            core.stats.dispatchErrors.increment();
            core.markFailed("dispatch thread died: " + e);
            core.tracker.cancelAll("endpoint " + core.name + " failed: " + e);
            throw e;
        }
    }

    /**
     * A failed request of an io lane takes only that lane out of the rotation (its other requests
     * flush and are re-issued or failed by {@link IoPath}); false when it was the last live lane or
     * the completion is not of a lane.
     */
    private boolean laneFailed(WorkCompletion wc) {
        int kind = WrIds.kind(wc.wrId());
        if (kind != WrIds.IO && kind != WrIds.IMM_WINDOW) {
            return false;
        }
        int lane = WrIds.qp(wc.wrId());
        EndpointCore.log().warn("endpoint {}: lane {} failed a request with {}", core.name, lane, wc.status());
        return core.router.markDead(lane) > 0;
    }

    /** Stops the loop and waits (bounded) for the thread to end. */
    void stop(long millis) throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(millis);
    }
}
