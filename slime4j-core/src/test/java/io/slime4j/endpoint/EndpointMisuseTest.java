package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.WcStatus;
import io.slime4j.wire.inproc.InprocWire;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Misuse is a clear exception at the call, and posts nothing; never a corrupted transfer. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EndpointMisuseTest {

    @Test
    void anUnknownRegionNameIsRefusedAtTheCall() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 16)) {
            assertThatThrownBy(() -> p.a.write(Assignment.local("nope", 0).remote("kv", 0).length(8))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no local region 'nope'").hasMessageContaining("[kv]");
            assertThatThrownBy(() -> p.a.read(Assignment.local("kv", 0).remote("nope", 0).length(8))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the peer has no region 'nope'");
            assertThatThrownBy(() -> p.a.send("nope", 0, 8)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> p.a.recv("nope", 0, 8)).isInstanceOf(IllegalArgumentException.class);
            assertNothingPosted(p);
        }
    }

    @Test
    void anOffsetOrLengthPastTheEndIsRefusedAtTheCall() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 16)) {
            assertThatThrownBy(() -> p.a.write(Assignment.local("kv", (1 << 16) - 7).remote("kv", 0).length(8)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("past the end of local region 'kv'");
            assertThatThrownBy(() -> p.a.write(Assignment.local("kv", 0).remote("kv", 1 << 16).length(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("past the end of remote region 'kv'");
            assertThatThrownBy(() -> p.a.read(Assignment.local("kv", 0).remote("kv", Long.MAX_VALUE).length(Long.MAX_VALUE)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> p.a.write(Assignment.local("kv", -1).remote("kv", 0).length(1))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> p.b.recv("kv", 10, 1 << 16)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("past the end");
            assertThatThrownBy(() -> p.a.send("kv", 1 << 16, 1)).isInstanceOf(IllegalArgumentException.class);
            // one bad assignment refuses the whole batch: nothing of it is posted
            assertThatThrownBy(() -> p.a.write(List.of(Assignment.local("kv", 0).remote("kv", 0).length(8),
                    Assignment.local("kv", 1 << 16).remote("kv", 1 << 16).length(8)))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> p.a.write((List<Assignment>) null)).isInstanceOf(IllegalArgumentException.class);
            assertNothingPosted(p);
            // the endpoint is fine afterwards
            assertThat(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length((1 << 16))).await(Duration.ofSeconds(10)))
                    .isEqualTo(TransferStatus.SUCCESS);
            p.assertClean();
        }
    }

    @Test
    void aMissingAccessRightIsRefusedAtTheCall() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 16)) {
            p.b.register("ro", p.allocate(4096), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
            p.a.register("local-ro", p.allocate(4096), 0);
            p.a.updatePeer(p.b.info());
            assertThatThrownBy(() -> p.a.write(Assignment.local("kv", 0).remote("ro", 0).length(8))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("REMOTE_WRITE");
            assertThatThrownBy(() -> p.a.read(Assignment.local("local-ro", 0).remote("ro", 0).length(8))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("LOCAL_WRITE");
            assertThatThrownBy(() -> p.b.recv("ro", 0, 8)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("REMOTE_WRITE");
            assertThat(p.a.read(Assignment.local("kv", 0).remote("ro", 0).length(8)).await(Duration.ofSeconds(10))).isEqualTo(TransferStatus.SUCCESS);
            assertThatThrownBy(() -> p.a.register("kv", p.allocate(64))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("already has a region named 'kv'");
            p.assertClean();
        }
    }

    @Test
    void aSendLongerThanTheMatchingRecvFailsBothAndKeepsThePairing() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().eagerThreshold(0).build() /* rendezvous: eager sends complete without their recv (EagerMessagesTest) */, 1 << 16)) {
            TransferFuture small = p.b.recv("kv", 0, 100);
            TransferFuture next = p.b.recv("kv", 1000, 300);
            TransferFuture tooLong = p.a.send("kv", 0, 200);
            Patterns.fill(p.kvA, 5000, 300, 8);
            TransferFuture fits = p.a.send("kv", 5000, 300);
            assertThat(tooLong.await(Duration.ofSeconds(10))).isEqualTo(TransferStatus.FAILED);
            assertThat(tooLong.wcStatus()).isEqualTo(WcStatus.LOC_LEN_ERR);
            assertThat(small.await(Duration.ofSeconds(10))).isEqualTo(TransferStatus.FAILED);
            assertThat(small.wcStatus()).isEqualTo(WcStatus.LOC_LEN_ERR);
            assertThat(fits.await(Duration.ofSeconds(10))).isEqualTo(TransferStatus.SUCCESS);
            assertThat(next.await(Duration.ofSeconds(10))).isEqualTo(TransferStatus.SUCCESS);
            assertThat(Patterns.mismatch(p.kvB, 1000, 300, 8)).isEqualTo(-1);
            assertThat(p.kvB.asSlice(0, 100).mismatch(Arena.global().allocate(100))).as("nothing written").isEqualTo(-1);
            p.assertClean();
        }
    }

    @Test
    void callsBeforeConnectAndAfterCloseAreRefused() {
        try (InprocWire wire = new InprocWire();
             SoftDevice device = SoftDevice.open(wire, "m", SoftConfig.defaults());
             Arena arena = Arena.ofShared()) {
            RdmaEndpoint ep = RdmaEndpoint.open(device, EndpointConfig.defaults());
            ep.register("kv", arena.allocate(4096));
            assertThatThrownBy(() -> ep.write(Assignment.local("kv", 0).remote("kv", 0).length(8))).isInstanceOf(EndpointException.class)
                    .hasMessageContaining("not connected");
            assertThatThrownBy(ep::immRecv).isInstanceOf(EndpointException.class).hasMessageContaining("not connected");
            ep.close();
            ep.close(); // idempotent
            assertThat(ep.isClosed()).isTrue();
            assertThatThrownBy(() -> ep.write(Assignment.local("kv", 0).remote("kv", 0).length(8))).isInstanceOf(EndpointClosedException.class);
            assertThatThrownBy(() -> ep.send("kv", 0, 8)).isInstanceOf(EndpointClosedException.class);
            assertThatThrownBy(() -> ep.recv("kv", 0, 8)).isInstanceOf(EndpointClosedException.class);
            assertThatThrownBy(ep::immRecv).isInstanceOf(EndpointClosedException.class);
            assertThatThrownBy(() -> ep.register("x", arena.allocate(64))).isInstanceOf(EndpointClosedException.class);
            assertThatThrownBy(() -> ep.connect(ep.info())).isInstanceOf(EndpointClosedException.class);
        }
    }

    @Test
    void connectingTwiceOrToAMismatchedPeerIsRefused() {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 4096)) {
            assertThatThrownBy(() -> p.a.connect(p.b.info())).isInstanceOf(EndpointException.class)
                    .hasMessageContaining("already connected");
        }
        try (InprocWire wire = new InprocWire();
             SoftDevice d1 = SoftDevice.open(wire, "x1", SoftConfig.defaults());
             SoftDevice d2 = SoftDevice.open(wire, "x2", SoftConfig.defaults());
             RdmaEndpoint one = RdmaEndpoint.open(d1, EndpointConfig.builder().qps(1).build());
             RdmaEndpoint two = RdmaEndpoint.open(d2, EndpointConfig.builder().qps(2).messageSlots(128).build())) {
            assertThatThrownBy(() -> one.connect(two.info())).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("same qps");
            RdmaEndpoint three = RdmaEndpoint.open(d1, EndpointConfig.builder().qps(2).build());
            assertThatThrownBy(() -> three.connect(two.info())).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("message slots");
            three.close();
        }
    }

    private static void assertNothingPosted(EndpointPair p) throws InterruptedException {
        p.awaitIdle(Duration.ofSeconds(5));
        assertThat(p.a.inFlight()).isZero();
        assertThat(p.a.ioPool().leases()).isZero();
        assertThat(p.a.sendPool().leases() + p.a.recvPool().leases() + p.b.recvPool().leases()).isZero();
    }
}
