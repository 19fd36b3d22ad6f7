package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.WcStatus;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 15, item 2, between two processes, with the default settings and with the opt-in
 * {@link EndpointConfig#keepaliveDeadline()}: the peer is killed (SIGKILL) and every op this
 * endpoint holds completes FAILED within {@link EndpointConfig#detectionBound()} plus one second of
 * the kill — on an idle connection (only a recv, an immRecv and an unmatched send outstanding:
 * nothing but the keepalive probe can notice) and under traffic (writes in flight). A live idle
 * peer answers the probes and the endpoint stays usable.
 */
class PeerLivenessTest {
    private static final Logger LOG = LoggerFactory.getLogger(PeerLivenessTest.class);
    private static final Duration SLACK = Duration.ofSeconds(1);
    /** The opt-in probe deadline the tests turn on: two default keepalive intervals. */
    private static final Duration DEADLINE = Duration.ofSeconds(4);

    @Test
    @Timeout(90)
    void anIdleEndpointNoticesAKilledPeerThroughItsKeepalive_withinTheBound() throws Exception {
        idle(EndpointConfig.builder().name("idle-survivor").build(), "the keepalive probe");
    }

    @Test
    @Timeout(90)
    void aBusyEndpointNoticesAKilledPeerWithinTheBound() throws Exception {
        busy(EndpointConfig.builder().name("busy-survivor").ioSlots(8).build(), "queue pair");
    }

    @Test
    @Timeout(60)
    void withAKeepaliveDeadline_anIdleEndpointNoticesAKilledPeerWithinTheShorterBound() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().name("idle-deadline").keepaliveDeadline(DEADLINE).build();
        assertThat(cfg.detectionBound()).isEqualTo(Duration.ofMillis(6_200)).isLessThan(EndpointConfig.defaults().detectionBound());
        idle(cfg, "(keepaliveDeadline)");
    }

    @Test
    @Timeout(60)
    void withAKeepaliveDeadline_aBusyEndpointNoticesAKilledPeerWithinTheShorterBound() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().name("busy-deadline").ioSlots(8).keepaliveDeadline(DEADLINE).build();
        assertThat(cfg.detectionBound()).isEqualTo(Duration.ofMillis(6_200))
                .isLessThan(EndpointConfig.retryBudget(cfg.qpTemplate())); // before the lanes' own retries run out
        busy(cfg, "(keepaliveDeadline)");
    }

    /** Idle but for a recv, an immRecv and an unmatched send: the peer is killed; all FAILED, citing {@code cause}, within the bound. */
    private static void idle(EndpointConfig cfg, String cause) throws Exception {
        try (Rig rig = new Rig(cfg)) {
            RdmaEndpoint ep = rig.ep;
            PeerChild peer = rig.peer;
            Map<String, TransferFuture> held = new ConcurrentHashMap<>();
            Map<String, Long> doneAt = new ConcurrentHashMap<>();
            track(held, doneAt, "recv", ep.recv("back", 0, 4096));
            track(held, doneAt, "immRecv", ep.immRecv());
            track(held, doneAt, "unmatched send", ep.send("src", 0, 64 << 10)); // rendezvous (above the eager threshold): waits for a meta

            Thread.sleep(cfg.keepalive().multipliedBy(2).toMillis()); // a probe or two, answered by the live peer
            assertThat(doneAt).as("nothing completes while the idle peer lives and answers the probes").isEmpty();
            assertThat(ep.write(Assignment.local("src", 0).remote("dst", 0).length(4096)).join().status())
                    .as("the endpoint is usable after idling").isEqualTo(TransferStatus.SUCCESS);

            long killed = System.nanoTime(); // before the signal: the wait for the process to exit counts too
            peer.kill();
            long last = awaitAll(held, doneAt, killed + cfg.detectionBound().plus(SLACK).plusSeconds(10).toNanos());
            assertAllFailed(held, cause);
            assertWithinBound(cfg, held.size(), Duration.ofNanos(last - killed), "idle");
        }
    }

    /** 256 KiB writes and reads in flight, a recv and an immRecv: the peer is killed; all FAILED, citing {@code cause}, within the bound. */
    private static void busy(EndpointConfig cfg, String cause) throws Exception {
        try (Rig rig = new Rig(cfg)) {
            RdmaEndpoint ep = rig.ep;
            PeerChild peer = rig.peer;
            Map<String, TransferFuture> held = new ConcurrentHashMap<>();
            Map<String, Long> doneAt = new ConcurrentHashMap<>();
            track(held, doneAt, "recv", ep.recv("back", 0, 4096));
            track(held, doneAt, "immRecv", ep.immRecv());
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger succeeded = new AtomicInteger();
            Thread writer = Thread.ofPlatform().daemon().name("busy-writer").start(() -> {
                for (int i = 0; !stop.get(); i++) {
                    TransferFuture f;
                    try {
                        f = i % 2 == 0 ? ep.write(Assignment.local("src", 0).remote("dst", 0).length(256 << 10))
                                : ep.read(Assignment.local("back", 0).remote("src", 0).length(256 << 10));
                    } catch (EndpointException e) {
                        return; // failed (or closed): later calls throw
                    }
                    f.toCompletableFuture().whenComplete((r, e) -> {
                        if (f.status() == TransferStatus.SUCCESS) {
                            succeeded.incrementAndGet();
                        }
                    });
                    if (i % 8 == 7) { // hold one op in eight until it settles: the last ones in flight at the kill
                        track(held, doneAt, "op " + i, f);
                    }
                }
            });
            Thread.sleep(1_500);
            assertThat(succeeded.get()).as("traffic flows before the kill").isPositive();
            long killed = System.nanoTime(); // before the signal: the wait for the process to exit counts too
            peer.kill();
            writer.join(cfg.detectionBound().plusSeconds(20).toMillis());
            stop.set(true);
            writer.join(5_000);
            held.entrySet().removeIf(e -> e.getValue().status() == TransferStatus.SUCCESS && doneAt.get(e.getKey()) != null
                    && doneAt.get(e.getKey()) < killed); // done before the kill
            long last = awaitAll(held, doneAt, killed + cfg.detectionBound().plus(SLACK).plusSeconds(10).toNanos());
            held.entrySet().removeIf(e -> e.getValue().status() == TransferStatus.SUCCESS); // acknowledged just before
            assertThat(held).as("ops in flight at the kill").hasSizeGreaterThan(2);
            assertAllFailed(held, cause);
            long lastFailed = held.keySet().stream().mapToLong(doneAt::get).max().orElseThrow();
            assertWithinBound(cfg, held.size(), Duration.ofNanos(Math.max(last, lastFailed) - killed), "busy");
        }
    }

    /** A soft device on UDP loopback, an endpoint with regions {@code src} and {@code back}, connected to a peer process. */
    private static final class Rig implements AutoCloseable {
        final UdpWire wire = new UdpWire();
        final Arena arena = Arena.ofShared();
        SoftDevice device;
        RdmaEndpoint ep;
        PeerChild peer;

        Rig(EndpointConfig cfg) throws Exception {
            try {
                device = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name(cfg.name()).build());
                ep = RdmaEndpoint.open(device, cfg);
                peer = new PeerChild("1");
                ep.register("src", arena.allocate(EndpointPeerMain.REGION, 4096));
                ep.register("back", arena.allocate(EndpointPeerMain.REGION, 4096));
                peer.connect(ep);
            } catch (Exception | Error e) {
                close(); // what was opened (null ones are skipped)
                throw e;
            }
        }

        @Override
        public void close() throws Exception {
            UdpWire w = wire;
            SoftDevice d = device;
            Arena a = arena;
            RdmaEndpoint e = ep;
            PeerChild p = peer;
            try (w; d; a; e; p) {
                // closed in reverse order: the peer, the endpoint, the memory, the device, the wire
            }
        }
    }

    /** Logs and checks the time from the kill to the last op FAILED against the bound plus the slack. */
    private static void assertWithinBound(EndpointConfig cfg, int ops, Duration took, String how) {
        LOG.info("{}: peer killed, last of {} ops FAILED after {} ms (bound {} ms + {} ms)", cfg.name(), ops,
                took.toMillis(), cfg.detectionBound().toMillis(), SLACK.toMillis());
        assertThat(took).as("from the kill to the last op FAILED, " + how).isLessThanOrEqualTo(cfg.detectionBound().plus(SLACK));
    }

    /** Waits (bounded) until every held op completed; the time of the last completion. */
    private static long awaitAll(Map<String, TransferFuture> held, Map<String, Long> doneAt, long deadline)
            throws InterruptedException {
        while (!doneAt.keySet().containsAll(held.keySet()) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(doneAt.keySet()).as("ops completed after the kill").containsAll(held.keySet());
        return held.keySet().stream().mapToLong(doneAt::get).max().orElseThrow();
    }

    private static void assertAllFailed(Map<String, TransferFuture> held, String cause) {
        held.forEach((name, f) -> {
            assertThat(f.status()).as("%s after the peer died", name).isEqualTo(TransferStatus.FAILED);
            assertThat(f.wcStatus()).as("status of %s", name).isEqualTo(WcStatus.RETRY_EXC_ERR);
            assertThat(f.failureMessage()).as("reason of %s", name).contains(cause).contains("the peer stopped answering");
        });
    }

    private static void track(Map<String, TransferFuture> held, Map<String, Long> doneAt, String name, TransferFuture f) {
        held.put(name, f);
        f.toCompletableFuture().whenComplete((r, e) -> doneAt.putIfAbsent(name, System.nanoTime()));
    }
}
