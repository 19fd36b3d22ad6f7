package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.WcStatus;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 15, item 1, between two processes: the peer is killed (SIGKILL) while this endpoint holds
 * every kind of operation — one-sided writes and reads, a recv waiting for data, an unmatched send
 * waiting for a meta, an immRecv, and a caller queued for an io slot. Once the endpoint fails (the
 * first request runs out of retries), every one of them completes FAILED at once with the same
 * status and reason, the queued caller throws it, and later calls throw it too.
 */
class PeerFailureTest {
    private static final Logger LOG = LoggerFactory.getLogger(PeerFailureTest.class);
    /** From the endpoint's failure to the last op FAILED ("at once": one dispatch, plus a loaded machine). */
    private static final Duration AT_ONCE = Duration.ofSeconds(1);
    /**
     * From the kill to the failure: the soft engine's retry budget (a 50 ms ACK timeout and 3
     * retries, stretched by its RTT estimate and backoff), with slack for a loaded machine. The bound
     * with the default settings, idle or busy, is {@link PeerLivenessTest}'s.
     */
    private static final Duration DETECTION = Duration.ofSeconds(30);

    @Test
    @Timeout(120)
    void whenThePeerDiesEveryHeldOpFailsAtOnceWithTheReason_andLaterCallsThrowIt() throws Exception {
        QpConfig qp = QpConfig.builder().ackTimeout(Duration.ofMillis(50)).retryCount(3).build();
        EndpointConfig cfg = EndpointConfig.builder().name("survivor").qps(1).ioSlots(3).requestsPerSlot(1)
                .maxRequestBytes(1 << 20).slotTimeout(Duration.ofSeconds(60)).qpTemplate(qp).build();
        try (UdpWire wire = new UdpWire();
             SoftDevice device = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("survivor").build());
             Arena arena = Arena.ofShared();
             RdmaEndpoint ep = RdmaEndpoint.open(device, cfg);
             PeerChild peer = new PeerChild("1")) {
            ep.register("src", arena.allocate(EndpointPeerMain.REGION, 4096));
            ep.register("back", arena.allocate(EndpointPeerMain.REGION, 4096));
            peer.connect(ep);
            assertThat(ep.write(Assignment.local("src", 0).remote("dst", 0).length(4096)).join().status()).as("a write before the kill")
                    .isEqualTo(TransferStatus.SUCCESS);

            Map<String, TransferFuture> held = new ConcurrentHashMap<>();
            Map<String, Long> doneAt = new ConcurrentHashMap<>();
            track(held, doneAt, "recv", ep.recv("back", 0, 4096)); // its meta reaches the live peer; no data will come
            track(held, doneAt, "unmatched send", ep.send("src", 0, 64 << 10)); // rendezvous: the peer posts no recv, no meta comes
            track(held, doneAt, "immRecv", ep.immRecv());
            Thread.sleep(200); // the recv's meta is acknowledged before the kill
            peer.kill();
            long killed = System.nanoTime();
            track(held, doneAt, "write", ep.write(Assignment.local("src", 0).remote("dst", 0).length(1 << 20))); // each takes one of the three io slots
            track(held, doneAt, "read", ep.read(Assignment.local("back", 0).remote("src", 0).length(1 << 20)));
            track(held, doneAt, "write-with-imm", ep.writeWithImm(List.of(Assignment.local("src", 0).remote("dst", 0).length(1 << 20)), 7));
            CompletableFuture<Throwable> queued = new CompletableFuture<>();
            AtomicLong queuedAt = new AtomicLong();
            Thread waiter = Thread.ofPlatform().start(() -> {
                Throwable t = catchThrowable(() -> track(held, doneAt, "queued write", ep.write(Assignment.local("src", 0).remote("dst", 0).length(4096))));
                queuedAt.set(System.nanoTime());
                queued.complete(t);
            });
            Throwable thrown = queued.get(DETECTION.toSeconds() + 10, TimeUnit.SECONDS);
            waiter.join(5_000);
            long deadline = killed + DETECTION.plusSeconds(10).toNanos();
            while (doneAt.size() < held.size() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            Map<String, String> pending = new LinkedHashMap<>();
            held.forEach((k, f) -> {
                if (!doneAt.containsKey(k)) {
                    pending.put(k, f.status().toString());
                }
            });
            assertThat(pending).as("ops still pending after the kill").isEmpty();

            long first = doneAt.values().stream().min(Long::compare).orElseThrow();
            long last = Math.max(doneAt.values().stream().max(Long::compare).orElseThrow(),
                    thrown == null ? first : queuedAt.get());
            String reason = null;
            for (Map.Entry<String, TransferFuture> e : held.entrySet()) {
                TransferFuture f = e.getValue();
                assertThat(f.status()).as("%s after the peer died", e.getKey()).isEqualTo(TransferStatus.FAILED);
                assertThat(f.wcStatus()).as("status of %s", e.getKey()).isEqualTo(WcStatus.RETRY_EXC_ERR);
                assertThat(f.failureMessage()).as("reason of %s", e.getKey()).containsPattern("survivor failed")
                        .contains("the peer stopped answering");
                reason = f.failureMessage();
            }
            if (thrown != null) { // the caller queued for a slot (it may have got one as the first ops drained)
                assertThat(thrown).as("the caller queued for an io slot").isInstanceOf(EndpointException.class)
                        .hasMessageContaining("RETRY_EXC_ERR");
            }
            assertThat(Duration.ofNanos(first - killed)).as("from the kill to the endpoint's failure")
                    .isLessThan(DETECTION);
            assertThat(Duration.ofNanos(last - first)).as("from the failure to the last op FAILED").isLessThan(AT_ONCE);
            LOG.info("peer killed: endpoint failed after {} ms, last of {} ops FAILED {} ms later; reason: {}",
                    (first - killed) / 1_000_000, held.size(), (last - first) / 1_000_000, reason);

            for (Runnable call : List.<Runnable>of(() -> ep.write(Assignment.local("src", 0).remote("dst", 0).length(64)), () -> ep.recv("back", 0, 64),
                    () -> ep.send("src", 0, 64), ep::immRecv)) {
                assertThat(catchThrowable(call::run)).as("a call after the failure").isInstanceOf(EndpointException.class)
                        .hasMessageContaining("RETRY_EXC_ERR").hasMessageContaining("the peer stopped answering");
            }
            long closing = System.nanoTime();
            ep.close();
            assertThat(Duration.ofNanos(System.nanoTime() - closing)).as("close after the failure")
                    .isLessThan(Duration.ofSeconds(6));
            for (Map.Entry<String, TransferFuture> e : held.entrySet()) {
                assertThat(e.getValue().isSettled()).as("%s settled after close", e.getKey()).isTrue();
            }
        }
    }

    /** Holds {@code f} under {@code name} and records when it completes (from its completion callback). */
    private static void track(Map<String, TransferFuture> held, Map<String, Long> doneAt, String name, TransferFuture f) {
        held.put(name, f);
        f.toCompletableFuture().whenComplete((r, e) -> doneAt.putIfAbsent(name, System.nanoTime()));
    }
}
