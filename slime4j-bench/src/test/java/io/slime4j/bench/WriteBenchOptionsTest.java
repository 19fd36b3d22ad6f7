package io.slime4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link WriteBench}'s options: which system's phase goes first, the footprint both systems
 * share, and a bad value named; the TCP stream over a footprint of several buffers.
 */
class WriteBenchOptionsTest {

    @Test
    void slime4jGoesFirstUnlessToldOtherwise() {
        assertThat(Options.parse(new String[0]).first).isEqualTo("slime4j");
        assertThat(Options.parse(new String[] {"--first", "tcp"}).first).isEqualTo("tcp");
    }

    @Test
    void anUnknownFirstSystemIsAOneLineErrorNamingIt() {
        assertThatThrownBy(() -> Options.parse(new String[] {"--first", "udp"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--first must be slime4j or tcp, was udp");
    }

    @Test
    void theWarmUpLastsEightSecondsUnlessToldOtherwiseAndABadValueIsAOneLineError() {
        assertThat(Options.parse(new String[0]).warmUntil(1_000)).isEqualTo(8_000_001_000L);
        assertThat(Options.parse(new String[] {"--warmup", "0"}).warmUntil(1_000)).isEqualTo(1_000);
        assertThat(Options.parse(new String[] {"--warmup", "2.5"}).warmUntil(0)).isEqualTo(2_500_000_000L);
        assertThatThrownBy(() -> Options.parse(new String[] {"--warmup", "-1"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--warmup must be seconds in [0, 600], was -1");
        assertThatThrownBy(() -> Options.parse(new String[] {"--warmup", "NaN"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--warmup must be seconds in [0, 600], was NaN");
        assertThatThrownBy(() -> Options.parse(new String[] {"--warmup", "abc"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--warmup must be seconds in [0, 600], was abc");
    }

    @Test
    void theTcpBaselineIsTheNioStreamOrIperf3FromOneBuffer() {
        assertThat(Options.parse(new String[0]).tcpName()).isEqualTo("NIO TCP");
        assertThat(Options.parse(new String[] {"--tcp", "iperf3"}).tcpName()).isEqualTo("iperf3");
        assertThatThrownBy(() -> Options.parse(new String[] {"--tcp", "netcat"}))
                .hasMessage("--tcp must be nio or iperf3, was netcat");
        assertThatThrownBy(() -> Options.parse(new String[] {"--tcp", "iperf3", "--buffers", "16"}))
                .hasMessageContaining("--buffers must be 1");
        assertThatThrownBy(() -> Options.parse(new String[] {"--tcp", "iperf3", "--sizes", "64K,4M"}))
                .hasMessageContaining("at most 1 MiB").hasMessageContaining("4 MiB");
    }

    /** A real iperf3 server and client on loopback (Debian's iperf3, which .ci/run installs): a rate, and a clear error. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void iperf3StreamsOnLoopbackAndItsReportIsRead() throws Exception {
        try (IperfStream iperf = new IperfStream(java.util.List.of(), "127.0.0.1")) {
            assertThat(iperf.round(1 << 16, 64L << 20)).as("MB/s").isGreaterThan(10);
        }
        assertThat(IperfStream.receivedMegabytesPerSecond(
                "{\"end\": {\"sum_received\": {\"bits_per_second\": 8.0e9}}}")).isEqualTo(1000.0);
        assertThatThrownBy(() -> IperfStream.receivedMegabytesPerSecond("{\"error\": \"unable to connect\"}"))
                .hasMessageContaining("unable to connect");
    }

    @Test
    void bothSystemsShareOneFootprintOfOneBufferUnlessToldOtherwise() {
        Options o = Options.parse(new String[] {"--sizes", "64K,1M"});
        assertThat(o.buffers).isEqualTo(1);
        assertThat(o.footprint()).isEqualTo(1 << 20);
        assertThat(Options.parse(new String[] {"--sizes", "64K,1M", "--buffers", "16"}).footprint()).isEqualTo(16L << 20);
        assertThatThrownBy(() -> Options.parse(new String[] {"--buffers", "0"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--buffers must be at least 1, was 0");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void theTcpStreamDeliversEveryByteThroughAFootprintOfSeveralBuffersOnEachSide() throws Exception {
        PipedOutputStream toTest = new PipedOutputStream();
        BufferedReader fromServer = new BufferedReader(new InputStreamReader(new PipedInputStream(toTest),
                StandardCharsets.UTF_8));
        Handshake server = new Handshake(new BufferedReader(new java.io.StringReader("")),
                new PrintStream(toTest, true, StandardCharsets.UTF_8));
        int size = 1000;
        CompletableFuture<Void> served = CompletableFuture.runAsync(() -> {
            try {
                TcpStream.serve(server, "127.0.0.1", size, 3); // a ring of 3 buffers, read across their ends
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        int port = Integer.parseInt(new Handshake(fromServer, System.out).expect("PORT"));
        try (TcpStream.Client client = new TcpStream.Client("127.0.0.1", port, size, 3)) {
            assertThat(client.round(size, 10)).as("every byte read and acknowledged").isPositive();
            assertThat(client.round(700, 7)).as("a smaller size through the same ring").isPositive();
        }
        served.get(10, TimeUnit.SECONDS); // the server returns once the client closes
    }
}
