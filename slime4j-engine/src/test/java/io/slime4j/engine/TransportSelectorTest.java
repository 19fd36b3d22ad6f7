package io.slime4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.engine.directory.PeerRecord;
import io.slime4j.shm.HostIdentity;
import io.slime4j.shm.TransportChoice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-peer choice between shm and the network, on both sides of a handshake, with made-up identities. */
class TransportSelectorTest {
    private static final HostIdentity HERE = new HostIdentity("boot-1", 4026531836L, 4026531840L);
    private static final HostIdentity OTHER_BOOT = new HostIdentity("boot-2", 4026531836L, 4026531840L);
    private static final HostIdentity OTHER_PIDNS = new HostIdentity("boot-1", 4026532001L, 4026531840L);
    private static final List<String> BOTH = List.of(PeerRecord.SHM, PeerRecord.NETWORK);

    private static PeerRecord peer(String host, List<String> transports) {
        return new PeerRecord("B", 7, "127.0.0.1:4000", "b-host", Map.of(), host, transports);
    }

    private static TransportSelector auto() {
        return new TransportSelector(TransportChoice.AUTO, HERE, true);
    }

    @Test
    void autoDialsShmToAPeerOfTheSameIdentityThatTakesShm() {
        assertThat(auto().dial(peer(HERE.toText(), BOTH))).isEqualTo(PeerTransport.SHM);
        assertThat(auto().offered()).containsExactly("shm", "network");
        assertThat(auto().hostText()).isEqualTo(HERE.toText());
    }

    @Test
    void autoDialsTheNetworkToAnotherBootOrOtherNamespacesOrAPeerThatDoesNotSay() {
        assertThat(auto().dial(peer(OTHER_BOOT.toText(), BOTH))).isEqualTo(PeerTransport.NETWORK);
        assertThat(auto().dial(peer(OTHER_PIDNS.toText(), BOTH))).isEqualTo(PeerTransport.NETWORK);
        assertThat(auto().dial(peer("", List.of()))).isEqualTo(PeerTransport.NETWORK); // an older engine
        assertThat(auto().dial(peer("not/an/identity-x", BOTH))).isEqualTo(PeerTransport.NETWORK);
    }

    @Test
    void autoDialsTheNetworkToASameHostPeerForcedToTheNetwork() {
        assertThat(auto().dial(peer(HERE.toText(), List.of(PeerRecord.NETWORK)))).isEqualTo(PeerTransport.NETWORK);
    }

    @Test
    void autoWithoutAnShmDeviceOrIdentityAlwaysDialsTheNetworkAndOffersOnlyIt() {
        TransportSelector noShm = new TransportSelector(TransportChoice.AUTO, HERE, false);
        assertThat(noShm.dial(peer(HERE.toText(), BOTH))).isEqualTo(PeerTransport.NETWORK);
        assertThat(noShm.offered()).containsExactly("network");
        TransportSelector noIdentity = new TransportSelector(TransportChoice.AUTO, null, true);
        assertThat(noIdentity.dial(peer(HERE.toText(), BOTH))).isEqualTo(PeerTransport.NETWORK);
        assertThat(noIdentity.hostText()).isEmpty();
    }

    @Test
    void forcedNetworkDialsTheNetworkEvenToASameHostPeer() {
        TransportSelector net = new TransportSelector(TransportChoice.NETWORK, HERE, false);
        assertThat(net.dial(peer(HERE.toText(), BOTH))).isEqualTo(PeerTransport.NETWORK);
        assertThat(net.offered()).containsExactly("network");
    }

    @Test
    void forcedShmTowardsAPeerOnAnotherHostIsAnErrorNamingBothIdentities() {
        TransportSelector shm = new TransportSelector(TransportChoice.SHM, HERE, true);
        assertThat(shm.offered()).containsExactly("shm");
        assertThat(shm.dial(peer(HERE.toText(), BOTH))).isEqualTo(PeerTransport.SHM);
        assertThatThrownBy(() -> shm.dial(peer(OTHER_BOOT.toText(), BOTH)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transport shm was forced").hasMessageContaining("peer B runs on another host")
                .hasMessageContaining(OTHER_BOOT.toText()).hasMessageContaining(HERE.toText());
        assertThatThrownBy(() -> shm.dial(peer("", List.of())))
                .hasMessageContaining("peer B does not state its host");
        assertThatThrownBy(() -> shm.dial(peer(HERE.toText(), List.of(PeerRecord.NETWORK))))
                .hasMessageContaining("peer B takes only [network]");
    }

    @Test
    void forcedShmNeedsAnShmDevice() {
        assertThatThrownBy(() -> TransportSelector.wantsShmDevice(TransportChoice.SHM, "no memfd_create"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shm cannot run here: no memfd_create");
        assertThat(TransportSelector.wantsShmDevice(TransportChoice.AUTO, "no memfd_create")).isFalse();
        assertThat(TransportSelector.wantsShmDevice(TransportChoice.AUTO, null)).isTrue();
        assertThat(TransportSelector.wantsShmDevice(TransportChoice.NETWORK, null)).isFalse();
        assertThatThrownBy(() -> new TransportSelector(TransportChoice.SHM, HERE, false))
                .hasMessageContaining("no shm device");
    }

    @Test
    void theAcceptingSideFollowsTheDiallerOrRefusesWithTheReason() {
        assertThat(auto().checkInbound("A", PeerTransport.SHM, HERE.toText())).isNull();
        assertThat(auto().checkInbound("A", PeerTransport.NETWORK, HERE.toText())).isNull();
        assertThat(auto().checkInbound("A", PeerTransport.parse(null), null)).isNull(); // an older engine's hello
        assertThat(auto().checkInbound("A", PeerTransport.SHM, OTHER_PIDNS.toText()))
                .contains("peer A dialled over shm from another host or other namespaces");
        assertThat(auto().checkInbound("A", PeerTransport.SHM, null)).contains("none stated");
        assertThat(new TransportSelector(TransportChoice.NETWORK, HERE, false)
                .checkInbound("A", PeerTransport.SHM, HERE.toText()))
                .contains("takes no shm connections (transport network was forced)");
        assertThat(new TransportSelector(TransportChoice.SHM, HERE, true)
                .checkInbound("A", PeerTransport.NETWORK, HERE.toText()))
                .contains("takes only shm connections (transport shm was forced), peer A dialled over the network");
    }

    @Test
    void transportNamesParseAndAnUnknownOneIsNamed() {
        assertThat(PeerTransport.parse("shm")).isEqualTo(PeerTransport.SHM);
        assertThat(PeerTransport.parse("network")).isEqualTo(PeerTransport.NETWORK);
        assertThatThrownBy(() -> PeerTransport.parse("rdma")).hasMessageContaining("was 'rdma'");
    }

    @Test
    void autoKeepsToTheNetworkWhereYamaRefusesCrossMemoryAttachToANonRootProcess(@TempDir Path dir) throws Exception {
        Path scope = dir.resolve("ptrace_scope");
        assertThat(TransportSelector.ptraceObstacle(scope, 1000)).as("no Yama: nothing in the way").isNull();
        Files.writeString(scope, "0\n");
        assertThat(TransportSelector.ptraceObstacle(scope, 1000)).isNull();
        Files.writeString(scope, "1\n");
        assertThat(TransportSelector.ptraceObstacle(scope, 0)).as("root may").isNull();
        String why = TransportSelector.ptraceObstacle(scope, 1000);
        assertThat(why).contains("ptrace_scope is 1", "process_vm_readv");

        assertThat(TransportSelector.wantsShmDevice(TransportChoice.AUTO, null, why)).isFalse();
        assertThat(TransportSelector.wantsShmDevice(TransportChoice.AUTO, null, null)).isTrue();
        assertThat(TransportSelector.wantsShmDevice(TransportChoice.SHM, null, why))
                .as("forced shm still opens the device: SharedMemory regions are mapped").isTrue();
        assertThat(TransportSelector.wantsShmDevice(TransportChoice.NETWORK, null, null)).isFalse();
    }
}
