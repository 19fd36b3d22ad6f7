package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * Issue 15, item 5, between two processes: {@link RdmaEndpoint#deregister} waits (bounded by
 * slotTimeout) for the ops using a region — a large read into it completes first; a recv that no
 * data will ever fill is failed at the bound — then invalidates the region's keys. The peer's next
 * write with the old key fails with REM_ACCESS_ERR and no byte of the memory changes; the name can
 * be registered again.
 */
class DeregisterCrossProcessTest {
    private static final Duration BOUND = Duration.ofSeconds(5);

    @Test
    @Timeout(120)
    void deregisterWaitsBoundedForItsOps_thenThePeersAccessFailsWithRemAccessErr() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().name("owner").slotTimeout(BOUND).build();
        try (UdpWire wire = new UdpWire();
             SoftDevice device = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name("owner").build());
             Arena arena = Arena.ofShared();
             RdmaEndpoint ep = RdmaEndpoint.open(device, cfg);
             PeerChild peer = new PeerChild("1")) {
            long size = 16 << 20;
            MemorySegment tmp = arena.allocate(size, 4096);
            ep.register("tmp", tmp);
            ep.register("src", arena.allocate(4096, 4096));
            peer.connect(ep);

            peer.call("WRITE src tmp 0 4096", "POSTED");
            assertThat(peer.expect("WROTE ")).as("the peer's write before deregister").isEqualTo("SUCCESS SUCCESS");
            assertThat(EndpointPeerMain.check(tmp, 0, 4096, 2)).isEqualTo(-1);
            tmp.fill((byte) 0);

            TransferFuture read = ep.read(Assignment.local("tmp", 0).remote("src", 0).length(4 << 20)); // in flight when deregister starts
            TransferFuture recv = ep.recv("tmp", 0, 4096); // the peer sends nothing: only the bound ends it
            long began = System.nanoTime();
            int failed = ep.deregister("tmp");
            Duration took = Duration.ofNanos(System.nanoTime() - began);

            assertThat(read.isSettled()).as("the read into the region when deregister returned").isTrue();
            assertThat(read.status()).isEqualTo(TransferStatus.SUCCESS);
            assertThat(failed).as("ops still using the region at the bound").isEqualTo(1);
            assertThat(recv.status()).isEqualTo(TransferStatus.FAILED);
            assertThat(recv.wcStatus()).isEqualTo(WcStatus.LOC_PROT_ERR);
            assertThat(recv.failureMessage()).contains("'tmp' was deregistered");
            assertThat(took).as("deregister's wait").isGreaterThanOrEqualTo(BOUND.minusMillis(50))
                    .isLessThan(BOUND.plusSeconds(3));
            assertThatThrownBy(() -> ep.write(Assignment.local("tmp", 0).remote("src", 0).length(64))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no local region 'tmp'");
            assertThat(ep.info().regions()).doesNotContainKey("tmp");

            tmp.fill((byte) 0);
            peer.call("WRITE src tmp 0 4096", "POSTED");
            assertThat(peer.expect("WROTE ")).as("the peer's write with the old key")
                    .isEqualTo("FAILED " + WcStatus.REM_ACCESS_ERR);
            for (long i = 0; i < size; i += 8) {
                assertThat(tmp.get(ValueLayout.JAVA_LONG_UNALIGNED, i)).as("bytes at %d after deregister", i).isZero();
            }
            ep.register("tmp", tmp); // the name is free again
            assertThat(ep.info().regions()).containsKey("tmp");
        }
    }
}
