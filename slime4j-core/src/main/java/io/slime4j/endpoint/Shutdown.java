package io.slime4j.endpoint;

import java.util.List;

/**
 * The close sequence of an endpoint, in the order that keeps every promise of
 * {@link RdmaEndpoint#close()}: cancel every live op, close the slot pools and wake every caller
 * waiting for back-pressure, flush the queue pairs, wait (bounded) until the flushes have been
 * dispatched, stop the dispatchers, end leases whose completions will never come, and only then
 * release regions and verbs resources — so no request of the endpoint touches memory afterwards.
 */
final class Shutdown {
    static final long QUIESCE_MILLIS = 5_000;

    private final Lifecycle lifecycle;
    private final Canceller canceller;
    private final Transport transport;
    private final SlotPool ioPool;
    private final IoSendQueue[] sendQueues;
    private final MessagePath messages;
    private final ImmRecvPath imm;
    private final Dispatcher[] dispatchers;
    private final Router router;
    private final SlotReleaser releaser;
    private final Regions regions;

    Shutdown(Lifecycle lifecycle, Canceller canceller, Transport transport, SlotPool ioPool, IoSendQueue[] sendQueues,
             MessagePath messages, ImmRecvPath imm, Dispatcher[] dispatchers, Router router, SlotReleaser releaser,
             Regions regions) {
        this.lifecycle = lifecycle;
        this.canceller = canceller;
        this.transport = transport;
        this.ioPool = ioPool;
        this.sendQueues = sendQueues;
        this.messages = messages;
        this.imm = imm;
        this.dispatchers = dispatchers;
        this.router = router;
        this.releaser = releaser;
        this.regions = regions;
    }

    void run() {
        String why = "endpoint " + lifecycle.name() + " closed";
        lifecycle.markClosing();
        canceller.cancel(why);
        ioPool.close();
        messages.sendPool().close();
        messages.recvPool().close();
        imm.wakeWaiters();
        messages.eager().credits().wake();
        transport.flush();
        messages.releaseUnmatched();
        long deadline = System.nanoTime() + QUIESCE_MILLIS * 1_000_000;
        while (!quiescent() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (Dispatcher d : dispatchers) {
            try {
                d.stop(QUIESCE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        router.selector().close();
        for (IoSendQueue sq : sendQueues) {
            sq.wakeCreditWaiters(); // only now: the dispatchers no longer count credits
        }
        canceller.cancel(why); // ops that raced with the first pass
        for (SlotPool pool : List.of(ioPool, messages.sendPool(), messages.recvPool())) {
            for (Slot s : pool.leased()) { // leases whose completions will never come (receives with no data)
                if (s.remaining() > 0) {
                    releaser.countDown(pool, s, s.remaining());
                }
            }
        }
        regions.closeAll();
        transport.close();
        Lifecycle.log().debug("endpoint {} closed", lifecycle.name());
    }

    /** Every flushed request has been dispatched: io and send slots are back, window receives gone. */
    private boolean quiescent() {
        if (ioPool.free() != ioPool.capacity() || messages.sendPool().free() != messages.sendPool().capacity()
                || transport.metaWindow.posted() > 0 || transport.dataWindow.posted() > 0) {
            return false;
        }
        for (RecvWindow w : transport.immWindows) {
            if (w.posted() > 0) {
                return false;
            }
        }
        return true;
    }

    /** Cancels every live op with a reason; how many. */
    @FunctionalInterface
    interface Canceller {
        int cancel(String why);
    }
}
