package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link GsoBatch} through a real native socket on loopback: several held GSO runs (each ended by
 * a shorter datagram, as a message's tail ends its run) leave in one {@code sendmmsg} and arrive as
 * the datagrams they were, in order; the vector it builds is one {@code mmsghdr} per run.
 */
@Timeout(20)
class GsoBatchTest {
    private static final int HEADER = 16;

    @BeforeAll
    static void nativeBackendAvailable() {
        assertThat(UdpConfig.Backend.nativeUnavailability()).as("native udp backend unavailable").isNull();
    }

    @Test
    void runsFillInOrderAndTheVectorHasOneMessageHeaderPerRun() {
        GsoBatch batch = new GsoBatch(Libc.AF_INET);
        InetSocketAddress peer = new InetSocketAddress("127.0.0.1", 4791);
        MemorySegment header = Arena.ofAuto().allocate(64);
        MemorySegment payload = Arena.ofAuto().allocate(1 << 16);
        assertThat(batch.runs()).isZero();
        assertThat(batch.advance()).as("an empty run does not end").isFalse();
        batch.current().add(peer, header, 64, payload.address(), 1000);
        batch.current().add(peer, header, 64, payload.address(), 1000);
        assertThat(batch.runs()).isEqualTo(1);
        assertThat(batch.advance()).isTrue();
        batch.current().add(peer, header, 64, payload.address(), 500);
        assertThat(batch.runs()).isEqualTo(2);
        MemorySegment vector = MemorySegment.ofAddress(batch.vector(0, 2)).reinterpret(2 * Libc.MMSGHDR_SIZE);
        assertThat(vector.get(ValueLayout.JAVA_LONG, Libc.MSG_IOVLEN)).as("run 0: two datagrams").isEqualTo(4);
        assertThat(vector.get(ValueLayout.JAVA_LONG, Libc.MSG_CONTROLLEN)).as("run 0: UDP_SEGMENT")
                .isEqualTo(Libc.CMSG_SPACE_SEGMENT);
        assertThat(vector.get(ValueLayout.JAVA_LONG, Libc.MMSGHDR_SIZE + Libc.MSG_IOVLEN)).as("run 1: one")
                .isEqualTo(2);
        assertThat(vector.get(ValueLayout.JAVA_LONG, Libc.MMSGHDR_SIZE + Libc.MSG_CONTROLLEN)).isZero();
        for (int i = 2; i < GsoBatch.MAX_RUNS; i++) {
            assertThat(batch.advance()).isTrue();
            batch.current().add(peer, header, 64, payload.address(), 100);
        }
        assertThat(batch.advance()).as("every run taken").isFalse();
        assertThat(batch.runs()).isEqualTo(GsoBatch.MAX_RUNS);
        batch.clear();
        assertThat(batch.runs()).isZero();
        assertThat(batch.current().count()).isZero();
    }

    @Test
    void severalHeldRunsLeaveInOneCallAndArriveInOrderByteExact() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        NativeUdpSocket sender = NativeUdpSocket.open(loopback, 0, 1 << 20, 1 << 20, false, true, false);
        NativeUdpSocket receiver = NativeUdpSocket.open(loopback, 0, 1 << 22, 1 << 20, false, false, false);
        UdpCounters counters = new UdpCounters();
        sender.countInto(counters);
        try (Arena arena = Arena.ofConfined()) {
            assertThat(sender.holds()).as("GSO granted on loopback").isTrue();
            InetSocketAddress to = new InetSocketAddress(loopback, receiver.localPort());
            // three messages as the engine sends them: 5 + 3 + 4 datagrams, each message's last shorter
            int[] lengths = {1000, 1000, 1000, 1000, 300, 800, 800, 20, 1200, 1200, 1200, 700};
            MemorySegment header = arena.allocate(HEADER);
            MemorySegment payload = arena.allocate(1 << 16);
            List<byte[]> sent = new ArrayList<>();
            long at = 0;
            for (int i = 0; i < lengths.length; i++) {
                header.fill((byte) (i + 1));
                byte[] p = Datagrams.bytes(lengths[i], 40 + i);
                MemorySegment.copy(p, 0, payload, ValueLayout.JAVA_BYTE, at, p.length);
                sender.hold(header, HEADER, payload, at, p.length, to);
                byte[] whole = new byte[HEADER + p.length];
                java.util.Arrays.fill(whole, 0, HEADER, (byte) (i + 1));
                System.arraycopy(p, 0, whole, HEADER, p.length);
                sent.add(whole);
                at += p.length;
            }
            assertThat(get(counters, UdpCounters.DATAGRAMS_SENT)).as("all still held").isZero();
            sender.flushHeld();
            assertThat(get(counters, UdpCounters.GSO_BATCHES)).as("one sendmmsg").isEqualTo(1);
            assertThat(get(counters, UdpCounters.GSO_SENDS)).as("three runs of several").isEqualTo(3);
            assertThat(get(counters, UdpCounters.DATAGRAMS_SENT)).isEqualTo(lengths.length);
            MemorySegment buffer = arena.allocate(2048);
            for (int i = 0; i < lengths.length; i++) {
                InetSocketAddress from = null;
                for (int t = 0; t < 500 && from == null; t++) {
                    from = receiver.receive(buffer);
                    if (from == null) {
                        Datagrams.settle();
                    }
                }
                assertThat(from).as("datagram %d arrived", i).isNotNull();
                assertThat(buffer.asSlice(0, receiver.receivedLength()).toArray(ValueLayout.JAVA_BYTE))
                        .as("datagram %d", i).isEqualTo(sent.get(i));
            }
        } finally {
            sender.close();
            receiver.close();
        }
    }

    private static long get(UdpCounters counters, int index) {
        long[] v = new long[UdpCounters.COUNT];
        counters.addTo(v);
        return v[index];
    }
}
