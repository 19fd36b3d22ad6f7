package io.slime4j.endpoint;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the endpoint's paths share: settings, the transport, the op tracker, the hooks, the
 * detectors, the slot releaser, the regions and the router. Also the small helpers every path
 * needs: bounded waits that turn into clear errors, and the usability check at each call.
 */
final class EndpointCore {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaEndpoint.class);

    final String name;
    final EndpointConfig config;
    final Transport transport;
    final OpTracker tracker;
    final EndpointHooks hooks;
    final Stats stats = new Stats();
    final SlotReleaser releaser;
    final Regions regions;
    final Router router;
    final long slotTimeoutNanos;
    private volatile Thread[] dispatchThreads = new Thread[0];
    private volatile boolean connected;
    private volatile boolean closing;
    private volatile String failure;

    EndpointCore(String name, EndpointConfig config, Transport transport, EndpointHooks hooks) {
        this.name = name;
        this.config = config;
        this.transport = transport;
        this.hooks = hooks;
        this.tracker = new OpTracker(name, hooks, config.completionExecutor());
        this.releaser = new SlotReleaser(hooks, transport, stats,
                () -> onDispatchThread() && !closing && failure == null);
        this.regions = new Regions(name);
        this.router = new Router(name, config.selectorFactory().create(config.qps(), config), config.qps());
        transport.deadLanes(router::isDead);
        transport.currentRail(this::dispatchRail); // I5 is checked per rail: each thread re-posts its own
        this.slotTimeoutNanos = config.slotTimeout().toNanos();
    }

    /** Throws unless operations may be started now. */
    void checkUsable() {
        if (closing) {
            throw new EndpointClosedException("endpoint " + name + " is closed");
        }
        String f = failure;
        if (f != null) {
            throw new EndpointException("endpoint " + name + " failed: " + f + "; close it and create a new one");
        }
        if (!connected) {
            throw new EndpointException("endpoint " + name + " is not connected: call connect(peerInfo) first");
        }
    }

    void checkOpen() {
        if (closing) {
            throw new EndpointClosedException("endpoint " + name + " is closed");
        }
    }

    boolean isClosing() {
        return closing;
    }

    void dispatchThreads(Thread[] threads) {
        dispatchThreads = threads.clone();
    }

    boolean onDispatchThread() {
        return dispatchRail() >= 0;
    }

    /** The rail whose dispatch thread is running this (or a caller handling its completions), or -1. */
    int dispatchRail() {
        Thread me = Thread.currentThread();
        Thread[] ts = dispatchThreads;
        for (int i = 0; i < ts.length; i++) {
            if (ts[i] == me) {
                return i;
            }
        }
        Dispatcher[] ds = dispatchers;
        for (int i = 0; i < ds.length; i++) {
            if (ds[i].isDispatching()) {
                return i;
            }
        }
        return -1;
    }

    /** The dispatchers, by rail (a caller helping one counts as on that rail's dispatch thread). */
    private volatile Dispatcher[] dispatchers = new Dispatcher[0];

    void dispatchers(Dispatcher[] ds) {
        dispatchers = ds.clone();
    }


    void markConnected() {
        connected = true;
    }

    boolean isConnected() {
        return connected;
    }

    void markClosing() {
        closing = true;
    }

    void markFailed(String why) {
        if (failure == null) {
            failure = why;
            LOG.error("endpoint {} failed: {}", name, why);
        }
    }

    /** Takes a permit within the slot timeout; false on timeout. */
    boolean acquire(Semaphore s) throws InterruptedException {
        return s.tryAcquire(slotTimeoutNanos, TimeUnit.NANOSECONDS);
    }

    EndpointBusyException busy(String what) {
        return new EndpointBusyException("endpoint " + name + ": " + what + " within " + config.slotTimeout()
                + " (back-pressure): wait for outstanding operations, or raise the pool size or slotTimeout");
    }

    /** Counts (and logs once in a while) a completion that landed on another op's lease. */
    void aliased(long wrId, OpState tenant) {
        stats.aliasedCompletions.increment();
        if (stats.aliasedCompletions.sum() <= 10) {
            LOG.error("endpoint {}: completion {} does not belong to the slot's tenant {} (ABA)", name,
                    WrIds.toString(wrId), tenant);
        }
    }

    void protocolError(String what) {
        stats.protocolErrors.increment();
        if (stats.protocolErrors.sum() <= 10) {
            LOG.error("endpoint {}: {}", name, what);
        }
    }

    static Logger log() {
        return LOG;
    }
}
