package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every operation byte-exact with 1, 2, 4, 8 and 64 lanes, each built-in selector, one and two
 * rails, on the in-process wire and on the UDP wire (loopback sockets).
 */
@Timeout(180)
class RoutingMatrixTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int[] QPS = {1, 2, 4, 8, 64};

    static Stream<Arguments> inproc() {
        List<Arguments> out = new ArrayList<>();
        for (int q : QPS) {
            for (String s : List.of("single", "round-robin", "striped")) {
                out.add(Arguments.of(q, s, 1));
            }
            if (q > 1) {
                out.add(Arguments.of(q, "striped", 2));
                out.add(Arguments.of(q, "round-robin-all", 2));
            }
        }
        return out.stream();
    }

    static Stream<Arguments> udp() {
        List<Arguments> out = new ArrayList<>();
        for (int q : QPS) {
            out.add(Arguments.of(q, "round-robin", 1));
            out.add(Arguments.of(q, "striped", q == 1 ? 1 : 2));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} QPs, {1}, {2} rail(s)")
    @MethodSource("inproc")
    void everyOperationIsByteExactOnTheInProcessWire(int qps, String selector, int rails) throws Exception {
        try (RailPair p = RailPair.inproc(rails, config(qps, selector), 8 << 20)) {
            exercise(p);
        }
    }

    @ParameterizedTest(name = "{0} QPs, {1}, {2} rail(s)")
    @MethodSource("udp")
    void everyOperationIsByteExactOnTheUdpWire(int qps, String selector, int rails) throws Exception {
        try (RailPair p = RailPair.udp(rails, config(qps, selector), 8 << 20)) {
            exercise(p);
        }
    }

    private static EndpointConfig config(int qps, String selector) {
        return EndpointConfig.builder().qps(qps).selector(selector).maxRequestBytes(64 << 10).stripeMinBytes(16 << 10)
                .immWindow(32).sendQueueDepth(256).build();
    }

    private static void exercise(RailPair p) throws InterruptedException {
        long big = (1 << 20) + 5;
        long mid = (70 << 10) + 3;
        Patterns.fill(p.kvA, 0, 1, 1);
        Patterns.fill(p.kvA, 4096, mid, 2);
        Patterns.fill(p.kvA, 1 << 20, big, 3);
        success(p.a.write(List.of(new Assignment("kv", 0, "kv", 7, 1), new Assignment("kv", 4096, "kv", 4099, mid),
                new Assignment("kv", 1 << 20, "kv", (1 << 20) + 1, big))), WAIT);
        assertThat(Patterns.mismatch(p.kvB, 7, 1, 1)).isEqualTo(-1);
        assertThat(Patterns.mismatch(p.kvB, 4099, mid, 2)).isEqualTo(-1);
        assertThat(Patterns.mismatch(p.kvB, (1 << 20) + 1, big, 3)).isEqualTo(-1);
        // read it back into another part of a
        success(p.a.read(List.of(new Assignment("kv", 4 << 20, "kv", (1 << 20) + 1, big))), WAIT);
        assertThat(Patterns.mismatch(p.kvA, 4 << 20, big, 3)).isEqualTo(-1);
        // write-with-imm of a spread batch: the immediate only after every byte
        Patterns.fill(p.kvA, 6 << 20, big, 4);
        TransferFuture imm = p.b.immRecv();
        success(p.a.writeWithImm(List.of(new Assignment("kv", 6 << 20, "kv", 6 << 20, big)), 0xCAFE), WAIT);
        assertThat(success(imm, WAIT).immediate()).isEqualTo(0xCAFE);
        assertThat(Patterns.mismatch(p.kvB, 6 << 20, big, 4)).isEqualTo(-1);
        // both directions of messages
        TransferFuture r = p.a.recv("kv", 3 << 20, 200_000);
        Patterns.fill(p.kvB, 5 << 20, 100_001, 5);
        success(p.b.send("kv", 5 << 20, 100_001), WAIT);
        assertThat(success(r, WAIT).byteCount()).isEqualTo(100_001);
        assertThat(Patterns.mismatch(p.kvA, 3 << 20, 100_001, 5)).isEqualTo(-1);
        p.assertClean();
    }
}
