package io.slime4j.endpoint;

import io.slime4j.verbs.VerbsDevice;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The endpoint's composition root: builds every part once, in dependency order, and hands each,
 * through its constructor, exactly the collaborators it uses. {@link RdmaEndpoint} keeps the parts
 * its public methods call; nothing else ever sees this object.
 */
final class EndpointWiring {
    private static final AtomicInteger NAMES = new AtomicInteger();

    final String name;
    final EndpointConfig config;
    final EndpointHooks hooks;
    final Lifecycle lifecycle;
    final Stats stats = new Stats();
    final Regions regions;
    final Router router;
    final Transport transport;
    final OpTracker tracker;
    final Ordering ordering;
    final ImmRecvPath imm;
    final SlotPool ioPool;
    final IoSendQueue[] sendQueues;
    final IoPath io;
    final MessagePath messages;
    final CancelNotices cancels;
    final Cancellation cancellation;
    final Keepalive keepalive;
    final LaneRecovery lanes;
    final IoCompletions ioCompletions;
    final Dispatcher[] dispatchers;
    final Shutdown shutdown;

    EndpointWiring(List<VerbsDevice> rails, EndpointConfig config, EndpointHooks hooks, DispatchGroup group) {
        this.name = config.name().isEmpty() ? "endpoint-" + NAMES.incrementAndGet() : config.name();
        this.config = config;
        this.hooks = hooks;
        this.lifecycle = new Lifecycle(name);
        this.regions = new Regions(name);
        this.router = new Router(name, config.selectorFactory().create(config.qps(), config), config.qps());
        try {
            this.transport = new Transport(rails, config, router::isDead);
        } catch (RuntimeException e) {
            router.selector().close();
            throw e;
        }
        this.tracker = new OpTracker(name, hooks, config.completionExecutor());
        this.ordering = new Ordering(lifecycle, tracker);
        Anomalies anomalies = new Anomalies(name, stats);
        BackPressure backPressure = new BackPressure(name, config.slotTimeout(), tracker);
        WindowWatch watch = hooks.watchWindowsAtRelease() ? new WindowWatch(transport, lifecycle, stats) : null;
        SlotReleaser releaser = new SlotReleaser(hooks, stats, watch);
        this.imm = new ImmRecvPath(lifecycle, config.immWindow(), router, transport, tracker, hooks, backPressure,
                anomalies, stats);
        this.ioPool = new SlotPool(name + " io", config.ioSlots(), config.requestsPerSlot(), 0);
        this.sendQueues = new IoSendQueue[config.qps()];
        for (int q = 0; q < sendQueues.length; q++) {
            sendQueues[q] = new IoSendQueue(q, transport.io[q], config.sendQueueDepth(), config.signalEvery(),
                    lifecycle::isEnding);
        }
        EndpointFailure[] failed = new EndpointFailure[1]; // made below: it needs the message path
        IoCompletions[] completions = new IoCompletions[1]; // made below: it needs the recovery
        this.lanes = new LaneRecovery(name, config.qps(), new RecoveryLanes(transport, sendQueues, imm), router,
                config.detectionBound().toNanos(), () -> winsTies(transport),
                () -> lifecycle.isConnected() && !lifecycle.isEnding(), (status, why) -> {
                    if (!lifecycle.isClosing()) {
                        failed[0].fail(status, why);
                    }
                }, () -> completions[0].lanesChanged());
        DeferredImm deferred = new DeferredImm(name, ioPool, sendQueues, router, imm, releaser);
        this.io = new IoPath(lifecycle, config, regions, router, transport, tracker, hooks, backPressure, releaser, imm,
                deferred, ioPool, sendQueues, ordering);
        IoCompletions ioCompletions = new IoCompletions(lifecycle, router, ioPool, sendQueues, deferred, releaser,
                anomalies, stats, lanes);
        completions[0] = ioCompletions;
        this.ioCompletions = ioCompletions;
        this.messages = new MessagePath(lifecycle, config, regions, router, transport, tracker, hooks,
                backPressure, releaser, anomalies, stats, imm, ordering, lanes);
        int used = 0;
        while (used < rails.size() && transport.railInUse(used)) {
            used++;
        }
        MessageCompletions messageCompletions = new MessageCompletions(name, transport, hooks, messages.sendPool(),
                messages.recvPool(), releaser, anomalies, messages.eager());
        this.cancels = messages.cancelNotices();
        tracker.onRecvCancelled(() -> cancels.notifyCancelled()); // a recv cancelled through its own future
        EndpointFailure failure = new EndpointFailure(lifecycle, tracker, imm, messages, ioPool, sendQueues, transport);
        failed[0] = failure;
        this.keepalive = new Keepalive(name, config.keepalive().toNanos(),
                config.keepaliveDeadline().toNanos(), System.nanoTime(),
                () -> lifecycle.isConnected() && !lifecycle.isEnding(), transport::probe, (status, why) -> {
                    if (!lifecycle.isClosing()) {
                        failure.fail(status, why);
                    }
                });
        this.dispatchers = new Dispatcher[used];
        for (int r = 0; r < used; r++) {
            dispatchers[r] = new Dispatcher(transport.cqs[r], r, config.pollTimeout().toNanos(), lifecycle, failure,
                    router, anomalies, ioCompletions, messages, imm, messageCompletions, cancels,
                    r == 0 ? keepalive : null, lanes, group);
        }
        if (watch != null) {
            watch.dispatchers(dispatchers);
        }
        tracker.drainers(dispatchers); // waiters may help the rail their op completes on
        this.cancellation = new Cancellation(imm, tracker, cancels);
        this.shutdown = new Shutdown(lifecycle, cancellation, transport, ioPool, sendQueues, messages, imm, dispatchers,
                router, releaser, regions);
    }

    /**
     * Whether this side's lane recovery stands when both sides start one for the same lane at once:
     * the smaller (rail-0 address, meta queue pair number) wins.
     */
    private static boolean winsTies(Transport transport) {
        EndpointInfo peer = transport.peer();
        if (peer == null) {
            return true;
        }
        int c = transport.device.address().compareTo(peer.metaQp().address());
        return c != 0 ? c < 0 : transport.meta.qpn() < peer.metaQp().qpn();
    }
}
