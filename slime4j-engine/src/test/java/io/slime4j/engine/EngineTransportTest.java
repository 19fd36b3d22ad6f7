package io.slime4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.endpoint.Assignment;
import io.slime4j.engine.directory.Directory;
import io.slime4j.engine.directory.FileDirectory;
import io.slime4j.engine.directory.PeerRecord;
import io.slime4j.shm.HostIdentity;
import io.slime4j.shm.TransportChoice;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The transport settings of engines in one process: what the record offers, and the clear errors of a forced one. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineTransportTest {
    @TempDir
    Path folder;

    private static TransferEngine engine(String name, Directory dir, TransportChoice t) {
        return TransferEngine.builder(name, dir).lease(Duration.ofSeconds(3)).connectTimeout(Duration.ofSeconds(3))
                .transport(t).start();
    }

    @Test
    void theRecordStatesThisProcesssHostIdentityAndTheTransportsTheSettingTakes() throws Exception {
        try (Directory dir = new FileDirectory(folder);
             TransferEngine auto = engine("A", dir, TransportChoice.AUTO);
             TransferEngine net = engine("N", dir, TransportChoice.NETWORK);
             TransferEngine shm = engine("S", dir, TransportChoice.SHM)) {
            String here = HostIdentity.current().toText();
            assertThat(dir.lookup("A").orElseThrow().host()).isEqualTo(here);
            assertThat(dir.lookup("A").orElseThrow().transports()).containsExactly("shm", "network");
            assertThat(dir.lookup("N").orElseThrow().transports()).containsExactly("network");
            assertThat(dir.lookup("S").orElseThrow().transports()).containsExactly("shm");
            assertThat(auto.deviceCounters()).containsKeys("A-rail0", "A-shm");
            assertThat(net.deviceCounters()).containsOnlyKeys("N-rail0");
        }
    }

    @Test
    void forcedShmTowardsAPeerRecordedOnAnotherHostFailsNamingBothHosts() throws Exception {
        try (Directory dir = new FileDirectory(folder);
             Arena arena = Arena.ofShared();
             TransferEngine a = engine("A", dir, TransportChoice.SHM)) {
            a.register("src", arena.allocate(64));
            HostIdentity here = HostIdentity.current();
            HostIdentity elsewhere = new HostIdentity(here.bootId() + "-other", here.pidNamespace(),
                    here.mountNamespace());
            dir.publish(new PeerRecord("Z", 9, "127.0.0.1:9", "z-host", Map.of("dst", 64L), elsewhere.toText(),
                    List.of("shm", "network")), Duration.ofSeconds(30));
            assertThatThrownBy(() -> a.write("Z", List.of(new Assignment("src", 0, "dst", 0, 64))))
                    .isInstanceOf(PeerUnavailableException.class)
                    .hasMessageContaining("transport shm was forced, but peer Z runs on another host")
                    .hasMessageContaining(elsewhere.toText()).hasMessageContaining(here.toText());
            assertThat(a.connectedPeers()).isEmpty();
        }
    }

    @Test
    void anEngineForcedToShmRefusesAPeerDiallingOverTheNetworkAndSaysWhy() throws Exception {
        try (Directory dir = new FileDirectory(folder);
             Arena arena = Arena.ofShared();
             TransferEngine a = engine("A", dir, TransportChoice.NETWORK);
             TransferEngine s = engine("S", dir, TransportChoice.SHM)) {
            a.register("src", arena.allocate(64));
            s.register("dst", arena.allocate(64));
            assertThatThrownBy(() -> a.write("S", List.of(new Assignment("src", 0, "dst", 0, 64))))
                    .isInstanceOf(PeerUnavailableException.class)
                    .hasMessageContaining("peer S refused the connection: engine S: engine takes only shm connections");
            assertThatThrownBy(() -> s.write("A", List.of(new Assignment("dst", 0, "src", 0, 64))))
                    .isInstanceOf(PeerUnavailableException.class)
                    .hasMessageContaining("transport shm was forced, but peer A takes only [network]");
        }
    }

    @Test
    void aMalformedTransportSettingIsNamed() {
        System.setProperty("slime4j.transport", "carrier-pigeon");
        try (Directory dir = new FileDirectory(folder)) {
            assertThatThrownBy(() -> TransferEngine.builder("A", dir).start())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("slime4j.transport must be auto, shm or network, was 'carrier-pigeon'");
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            System.clearProperty("slime4j.transport");
        }
    }
}
