package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.WcStatus;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15, item 3, the way libfabric's fabtests cancel test does it, between two processes: this
 * side posts a recv and cancels it, then the peer sends two messages. The first pairs with the
 * cancelled recv: the peer's send fails with REM_ABORT_ERR and nothing lands in the cancelled
 * buffer; the second fills the next recv; and later pairs stay aligned.
 */
class CancelledRecvCrossProcessTest {

    @Test
    @Timeout(120)
    void aRecvCancelledBeforeItsDataFailsTheMatchingSend_andLaterPairsStayAligned() throws Exception {
        try (UdpWire wire = new UdpWire();
             SoftDevice device = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("receiver").build());
             Arena arena = Arena.ofShared();
             RdmaEndpoint ep = RdmaEndpoint.open(device, EndpointConfig.builder().name("receiver")
                     .eagerThreshold(0).build()); // the rendezvous cancel notice (both sides use the smaller threshold)
             PeerChild peer = new PeerChild("1")) {
            MemorySegment inbox = arena.allocate(1 << 20, 4096);
            ep.register("src", arena.allocate(4096, 4096));
            ep.register("inbox", inbox);
            peer.connect(ep);

            TransferFuture cancelled = ep.recv("inbox", 0, 4096);
            assertThat(ep.cancelAll()).isEqualTo(1);
            assertThat(cancelled.status()).isEqualTo(TransferStatus.CANCELLED);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!peer.call("NOTICES", "NOTICES ").equals("1")) { // the peer has read the cancel notice
                assertThat(System.nanoTime()).as("the peer reading the cancel notice within 20 s").isLessThan(deadline);
                Thread.sleep(5);
            }
            TransferFuture second = ep.recv("inbox", 65536, 4096);
            TransferFuture third = ep.recv("inbox", 131072, 4096);

            peer.call("SEND 0 1000", "POSTED");
            assertThat(peer.expect("SENT ")).as("the peer's send matched with the cancelled recv")
                    .isEqualTo("FAILED " + WcStatus.REM_ABORT_ERR);
            peer.call("SEND 0 2000", "POSTED");
            assertThat(peer.expect("SENT ")).as("the peer's second send").isEqualTo("SUCCESS " + WcStatus.SUCCESS);
            assertThat(second.await(Duration.ofSeconds(20))).isEqualTo(TransferStatus.SUCCESS);
            assertThat(second.byteCount()).as("bytes in the recv after the cancelled one: the second message's")
                    .isEqualTo(2000);
            assertThat(EndpointPeerMain.check(inbox, 65536, 2000, 2)).as("first wrong byte of the second message")
                    .isEqualTo(-1);

            peer.call("SEND 0 3000", "POSTED");
            assertThat(peer.expect("SENT ")).isEqualTo("SUCCESS " + WcStatus.SUCCESS);
            assertThat(third.await(Duration.ofSeconds(20))).isEqualTo(TransferStatus.SUCCESS);
            assertThat(third.byteCount()).as("the next pair, still aligned").isEqualTo(3000);

            long deadline2 = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!cancelled.isSettled() && System.nanoTime() < deadline2) {
                Thread.sleep(1);
            }
            assertThat(cancelled.isSettled()).as("the cancelled recv settled (the peer's abort arrived)").isTrue();
            for (long i = 0; i < 4096; i++) {
                assertThat(inbox.get(ValueLayout.JAVA_BYTE, i)).as("byte %d of the cancelled recv's buffer", i)
                        .isZero();
            }
            assertThat(cancelled.status()).isEqualTo(TransferStatus.CANCELLED);
            assertThat(ep.stats().protocolErrors.sum()).isZero();
        }
    }
}
