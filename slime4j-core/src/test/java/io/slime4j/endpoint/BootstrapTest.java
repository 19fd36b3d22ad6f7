package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.endpoint.BootstrapException.Reason;
import io.slime4j.verbs.QpInfo;
import java.io.DataOutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class BootstrapTest {
    private static final Duration T = Duration.ofSeconds(10);

    private static EndpointInfo info(String name) {
        QpInfo qp = new QpInfo("udp:127.0.0.1:4000", 3, 77, -5L);
        return new EndpointInfo(name, "udp:127.0.0.1:4000", 64, 256, List.of(qp, qp), qp, qp,
                Map.of("dst", new RegionInfo(0x7f00_0000_1234L, 1 << 20, Long.MIN_VALUE + 9, 15)));
    }

    @Test
    void twoSidesExchangeEndpointInfoAndOptionsOverAnEphemeralPort() throws Exception {
        try (BootstrapListener listener = Bootstrap.listen("127.0.0.1", 0)) {
            assertThat(listener.port()).isPositive();
            CompletableFuture<BootstrapMessage> server = CompletableFuture.supplyAsync(() -> {
                try (BootstrapChannel c = listener.accept(T)) {
                    BootstrapMessage hello = c.receive(T);
                    c.send(BootstrapMessage.of(info("server"), Map.of("ok", "yes")), T);
                    return hello;
                }
            });
            try (BootstrapChannel c = Bootstrap.connect("127.0.0.1", listener.port(), T)) {
                BootstrapMessage reply = c.exchange(BootstrapMessage.of(info("client"),
                        Map.of("op", "write", "quote\"\n\u00e9", "\u2713")), T);
                assertThat(reply.info()).isEqualTo(info("server"));
                assertThat(reply.require("ok")).isEqualTo("yes");
            }
            BootstrapMessage hello = server.get(10, TimeUnit.SECONDS);
            assertThat(hello.info()).isEqualTo(info("client"));
            assertThat(hello.options()).containsEntry("op", "write").containsEntry("quote\"\n\u00e9", "\u2713");
        }
    }

    @Test
    void theClientRetriesUntilTheServerStartsListening() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        CompletableFuture<BootstrapChannel> client = CompletableFuture.supplyAsync(
                () -> Bootstrap.connect("127.0.0.1", port, T));
        Thread.sleep(300);
        try (BootstrapListener listener = Bootstrap.listen("127.0.0.1", port);
             BootstrapChannel server = listener.accept(T);
             BootstrapChannel c = client.get(10, TimeUnit.SECONDS)) {
            c.send(BootstrapMessage.of(Map.of("n", "1")), T);
            assertThat(server.receive(T).info()).isNull();
        }
    }

    @Test
    void anUnreachablePeerFailsAtTheDeadlineNamingTheAddress() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        assertThatThrownBy(() -> Bootstrap.connect("127.0.0.1", port, Duration.ofMillis(300)))
                .isInstanceOfSatisfying(BootstrapException.class, e -> assertThat(e.reason()).isEqualTo(Reason.UNREACHABLE))
                .hasMessageStartingWith("cannot reach 127.0.0.1:" + port + " within 300 ms (connection refused");
        assertThatThrownBy(() -> Bootstrap.connect("no-such-host.invalid", 1, Duration.ofMillis(300)))
                .isInstanceOfSatisfying(BootstrapException.class, e -> assertThat(e.reason()).isEqualTo(Reason.UNREACHABLE))
                .hasMessageContaining("unknown host");
    }

    @Test
    void aPortInUseIsReportedAsSuch() {
        try (BootstrapListener first = Bootstrap.listen("127.0.0.1", 0)) {
            assertThatThrownBy(() -> Bootstrap.listen("127.0.0.1", first.port()))
                    .isInstanceOfSatisfying(BootstrapException.class, e -> assertThat(e.reason()).isEqualTo(Reason.PORT_IN_USE))
                    .hasMessageContaining("port " + first.port() + " on 127.0.0.1 is in use");
        }
        assertThatThrownBy(() -> Bootstrap.listen("127.0.0.1", 70_000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badFramesAreRejectedAndCloseTheChannel() throws Exception {
        for (byte[] raw : List.of(frame(Integer.MAX_VALUE, new byte[0]), frame(0, new byte[0]),
                frame("{x}".getBytes(StandardCharsets.UTF_8)), frame(new byte[] {(byte) 0xC3, (byte) 0x28}),
                frame("{\"a\":1}".getBytes(StandardCharsets.UTF_8)),
                frame("{\"options\":{\"n\":1}}".getBytes(StandardCharsets.UTF_8)),
                frame("{\"options\":{},\"info\":\"{}\"}".getBytes(StandardCharsets.UTF_8)))) {
            try (BootstrapListener listener = Bootstrap.listen("127.0.0.1", 0);
                 Socket raw1 = new Socket("127.0.0.1", listener.port());
                 BootstrapChannel server = listener.accept(T)) {
                raw1.getOutputStream().write(raw);
                assertThatThrownBy(() -> server.receive(T))
                        .isInstanceOfSatisfying(BootstrapException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_FRAME))
                        .hasMessageContaining("bad bootstrap frame");
                assertThat(server.isPeerClosed()).as("a channel that saw a bad frame is closed").isTrue();
            }
        }
    }

    @Test
    void waitsAreBoundedAndAClosedPeerIsDetectedWithoutLosingData() throws Exception {
        try (BootstrapListener listener = Bootstrap.listen("127.0.0.1", 0)) {
            assertThatThrownBy(() -> listener.accept(Duration.ofMillis(100)))
                    .isInstanceOfSatisfying(BootstrapException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TIMEOUT));
            BootstrapChannel client = Bootstrap.connect("127.0.0.1", listener.port(), T);
            try (BootstrapChannel server = listener.accept(T)) {
                assertThatThrownBy(() -> server.receive(Duration.ofMillis(100)))
                        .isInstanceOfSatisfying(BootstrapException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TIMEOUT));
                assertThat(server.isPeerClosed()).isFalse();
                client.send(BootstrapMessage.of(Map.of("k", "v")), T);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (server.isPeerClosed() && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(server.isPeerClosed()).isFalse();
                assertThat(server.receive(T).require("k")).as("the byte peeked by isPeerClosed is not lost").isEqualTo("v");
                client.close();
                assertThatThrownBy(() -> server.receive(T))
                        .isInstanceOfSatisfying(BootstrapException.class, e -> assertThat(e.reason()).isEqualTo(Reason.CLOSED))
                        .hasMessageContaining("closed the connection");
                assertThat(server.isPeerClosed()).isTrue();
                assertThatThrownBy(() -> server.send(BootstrapMessage.of(Map.of("x", "x".repeat(Bootstrap.MAX_FRAME_BYTES))), T))
                        .isInstanceOfSatisfying(BootstrapException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_FRAME))
                        .hasMessageContaining("exceeds the limit");
            }
        }
    }

    @Test
    void aFrameCutShortTimesOutAndClosesTheChannel() throws Exception {
        try (BootstrapListener listener = Bootstrap.listen("127.0.0.1", 0);
             Socket raw = new Socket("127.0.0.1", listener.port());
             BootstrapChannel server = listener.accept(T)) {
            raw.getOutputStream().write(new byte[] {0, 0}); // half a length
            assertThatThrownBy(() -> server.receive(Duration.ofMillis(300)))
                    .isInstanceOfSatisfying(BootstrapException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TIMEOUT));
            assertThat(server.isPeerClosed()).as("a channel left inside a frame is closed").isTrue();
        }
    }

    private static byte[] frame(byte[] body) throws Exception {
        return frame(body.length, body);
    }

    private static byte[] frame(int length, byte[] body) throws Exception {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        try (DataOutputStream d = new DataOutputStream(b)) {
            d.writeInt(length);
            d.write(body);
        }
        return b.toByteArray();
    }
}
