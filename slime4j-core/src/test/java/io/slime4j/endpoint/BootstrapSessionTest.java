package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.wire.inproc.InprocWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Bootstrap#serve} and {@link Bootstrap#connect(RdmaEndpoint, String, int, Duration)}: one
 * call per side over a real TCP side channel on loopback connects both endpoints, and the session
 * they return carries later regions ({@link BootstrapSession#publish}) and the program's messages.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BootstrapSessionTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private InprocWire wire;
    private SoftDevice deviceA;
    private SoftDevice deviceB;
    private Arena arena;

    @BeforeEach
    void devices() {
        wire = new InprocWire();
        deviceA = SoftDevice.open(wire, "boot-a", SoftConfig.defaults());
        deviceB = SoftDevice.open(wire, "boot-b", SoftConfig.defaults());
        arena = Arena.ofShared();
    }

    @AfterEach
    void close() {
        arena.close();
        deviceA.close();
        deviceB.close();
        wire.close();
    }

    /** Serves on a free port in the background and connects to it; returns {server, client}. */
    private static BootstrapSession[] pair(RdmaEndpoint server, RdmaEndpoint client, Map<String, String> serverOptions,
                                           Map<String, String> clientOptions) throws Exception {
        try (BootstrapListener listener = Bootstrap.listen("127.0.0.1", 0)) {
            CompletableFuture<BootstrapSession> served = CompletableFuture.supplyAsync(
                    () -> Bootstrap.serve(server, listener, WAIT, serverOptions));
            BootstrapSession c = Bootstrap.connect(client, "127.0.0.1", listener.port(), WAIT, clientOptions);
            return new BootstrapSession[] {served.get(20, TimeUnit.SECONDS), c};
        }
    }

    @Test
    void oneCallPerSideConnectsBothEndpointsAndCarriesTheOptions() throws Exception {
        try (RdmaEndpoint a = RdmaEndpoint.open(deviceA, EndpointConfig.defaults());
             RdmaEndpoint b = RdmaEndpoint.open(deviceB, EndpointConfig.defaults())) {
            MemorySegment kvA = arena.allocate(1 << 16);
            MemorySegment kvB = arena.allocate(1 << 16);
            a.register("kv", kvA);
            b.register("kv", kvB);
            BootstrapSession[] s = pair(a, b, Map.of("role", "server"), Map.of("role", "client"));
            try (BootstrapSession server = s[0]; BootstrapSession client = s[1]) {
                assertThat(a.isConnected()).isTrue();
                assertThat(b.isConnected()).isTrue();
                assertThat(server.peerOptions()).isEqualTo(Map.of("role", "client"));
                assertThat(client.peerOptions()).isEqualTo(Map.of("role", "server"));
                assertThat(server.peer().name()).isEqualTo(b.name());
                kvB.asSlice(0, 64).fill((byte) 5);
                b.write(Assignment.local("kv", 0).remote("kv", 128).length(64)).join(WAIT);
                assertThat(kvA.get(ValueLayout.JAVA_BYTE, 128 + 63)).isEqualTo((byte) 5);
            }
        }
    }

    @Test
    void aRegionRegisteredAfterConnectReachesThePeerWhenPublishReturns() throws Exception {
        try (RdmaEndpoint a = RdmaEndpoint.open(deviceA, EndpointConfig.defaults());
             RdmaEndpoint b = RdmaEndpoint.open(deviceB, EndpointConfig.defaults())) {
            a.register("kv", arena.allocate(1 << 16));
            b.register("kv", arena.allocate(1 << 16));
            BootstrapSession[] s = pair(a, b, Map.of(), Map.of());
            try (BootstrapSession server = s[0]; BootstrapSession client = s[1]) {
                MemorySegment late = arena.allocate(4096);
                a.register("late", late);
                assertThatThrownBy(() -> b.write(Assignment.local("kv", 0).remote("late", 0).length(8)))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("updatePeer");
                server.publish(WAIT);
                b.region("kv").asSlice(0, 8).fill((byte) 9);
                b.write(Assignment.local("kv", 0).remote("late", 0).length(8)).join(WAIT);
                assertThat(late.get(ValueLayout.JAVA_BYTE, 7)).isEqualTo((byte) 9);
                assertThat(client.peer().regions()).containsKey("late");
                server.publish(WAIT); // again, nothing new: harmless
            }
        }
    }

    @Test
    void theSessionCarriesTheProgramsOwnMessagesAndEndsWhenThePeerCloses() throws Exception {
        try (RdmaEndpoint a = RdmaEndpoint.open(deviceA, EndpointConfig.defaults());
             RdmaEndpoint b = RdmaEndpoint.open(deviceB, EndpointConfig.defaults())) {
            BootstrapSession[] s = pair(a, b, Map.of(), Map.of());
            try (BootstrapSession server = s[0]; BootstrapSession client = s[1]) {
                client.send(BootstrapMessage.of(Map.of("cmd", "done")), WAIT);
                assertThat(server.receive(WAIT).require("cmd")).isEqualTo("done");
                assertThatThrownBy(() -> server.receive(Duration.ofMillis(50)))
                        .isInstanceOfSatisfying(BootstrapException.class,
                                e -> assertThat(e.reason()).isEqualTo(BootstrapException.Reason.TIMEOUT));
                assertThatThrownBy(() -> client.send(BootstrapMessage.of(Map.of(BootstrapSession.KIND, "x")), WAIT))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved");
                client.close();
                assertThatThrownBy(() -> server.receive(WAIT)).isInstanceOfSatisfying(BootstrapException.class,
                        e -> assertThat(e.reason()).isEqualTo(BootstrapException.Reason.CLOSED));
                assertThat(server.isEnded()).isTrue();
                assertThatThrownBy(() -> server.publish(WAIT)).isInstanceOf(BootstrapException.class);
                assertThat(a.isClosed()).as("the endpoint stays the caller's").isFalse();
            }
        }
    }

    @Test
    void endpointsThatCannotConnectFailOnBothSidesSayingWhy() throws Exception {
        try (RdmaEndpoint a = RdmaEndpoint.open(deviceA, EndpointConfig.builder().qps(2).build());
             RdmaEndpoint b = RdmaEndpoint.open(deviceB, EndpointConfig.defaults());
             BootstrapListener listener = Bootstrap.listen("127.0.0.1", 0)) {
            CompletableFuture<BootstrapSession> served = CompletableFuture.supplyAsync(
                    () -> Bootstrap.serve(a, listener, WAIT, Map.of()));
            assertThatThrownBy(() -> Bootstrap.connect(b, "127.0.0.1", listener.port(), WAIT))
                    .hasMessageContaining("qps");
            assertThatThrownBy(() -> served.get(20, TimeUnit.SECONDS)).rootCause().hasMessageContaining("qps");
        }
    }

    @Test
    void serveOnABusyPortOrConnectToNobodyFailsClearly() {
        try (RdmaEndpoint a = RdmaEndpoint.open(deviceA, EndpointConfig.defaults());
             BootstrapListener taken = Bootstrap.listen("127.0.0.1", 0)) {
            assertThatThrownBy(() -> Bootstrap.serve(a, "127.0.0.1", taken.port(), WAIT))
                    .isInstanceOfSatisfying(BootstrapException.class,
                            e -> assertThat(e.reason()).isEqualTo(BootstrapException.Reason.PORT_IN_USE));
            int free = taken.port();
            taken.close();
            assertThatThrownBy(() -> Bootstrap.connect(a, "127.0.0.1", free, Duration.ofMillis(300)))
                    .isInstanceOfSatisfying(BootstrapException.class,
                            e -> assertThat(e.reason()).isEqualTo(BootstrapException.Reason.UNREACHABLE));
            assertThat(a.isConnected()).isFalse();
        }
    }
}
