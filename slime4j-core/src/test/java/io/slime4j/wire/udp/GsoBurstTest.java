package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link GsoBurst}: which datagrams join a run, and the msghdr, iovecs and UDP_SEGMENT message it builds. */
@Timeout(10)
class GsoBurstTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 4791);
    private static final InetSocketAddress OTHER = new InetSocketAddress("127.0.0.1", 4792);
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment header = arena.allocate(64);
    private final MemorySegment payload = arena.allocate(1 << 20);

    @Test
    void datagramsOfOneSizeToOnePeerJoinUntilAShorterOneEndsTheRun() {
        GsoBurst b = new GsoBurst(Libc.AF_INET);
        b.add(PEER, header, 64, payload.address(), 1408);
        assertThat(b.joins(PEER, 1472)).isTrue();
        assertThat(b.joins(new InetSocketAddress("127.0.0.1", 4791), 1472)).as("an equal address").isTrue();
        assertThat(b.joins(OTHER, 1472)).as("another peer").isFalse();
        assertThat(b.joins(PEER, 1473)).as("a longer datagram").isFalse();
        b.add(PEER, header, 64, payload.address() + 1408, 1000);
        assertThat(b.full()).as("after a shorter one").isTrue();
        assertThat(b.joins(PEER, 1064)).isFalse();
        assertThat(b.count()).isEqualTo(2);
        assertThat(b.bytes()).isEqualTo(1472 + 1064);
    }

    @Test
    void aRunHoldsAtMostSixtyFourDatagramsAndSixtyFourKibibytes() {
        GsoBurst small = new GsoBurst(Libc.AF_INET);
        for (int i = 0; i < GsoBurst.MAX_SEGMENTS; i++) {
            assertThat(small.full()).isFalse();
            small.add(PEER, header, 64, payload.address(), 100);
        }
        assertThat(small.full()).isTrue();
        assertThat(small.joins(PEER, 164)).isFalse();

        GsoBurst large = new GsoBurst(Libc.AF_INET);
        int added = 0;
        while (!large.full()) {
            large.add(PEER, header, 64, payload.address(), 8908);
            added++;
        }
        assertThat(added).isEqualTo(GsoBurst.MAX_BYTES / 8972);
        assertThat(large.bytes()).isLessThanOrEqualTo(GsoBurst.MAX_BYTES);
        assertThat(GsoBurst.fits(64, GsoBurst.MAX_BYTES / 2)).isTrue();
        assertThat(GsoBurst.fits(64, 61_504)).as("a 60 KiB loopback datagram goes alone").isFalse();
        assertThat(GsoBurst.fits(GsoBurst.MAX_HEADER + 1, 1000)).isFalse();
    }

    @Test
    void theSegmentedMessageGathersEveryHeaderCopyAndPayloadInPlaceWithTheSegmentSize() {
        GsoBurst b = new GsoBurst(Libc.AF_INET);
        header.set(ValueLayout.JAVA_LONG, 0, 0x1111);
        b.add(PEER, header, 64, payload.address(), 1408);
        header.set(ValueLayout.JAVA_LONG, 0, 0x2222); // the engine reuses its header buffer at once
        b.add(PEER, header, 64, payload.address() + 1408, 1408);
        MemorySegment msg = MemorySegment.ofAddress(b.message(true, 0)).reinterpret(Libc.MSGHDR_SIZE);
        assertThat(msg.get(ValueLayout.JAVA_LONG, Libc.MSG_IOVLEN)).isEqualTo(4);
        MemorySegment iov = MemorySegment.ofAddress(msg.get(ValueLayout.JAVA_LONG, Libc.MSG_IOV)).reinterpret(64);
        MemorySegment h0 = MemorySegment.ofAddress(iov.get(ValueLayout.JAVA_LONG, 0)).reinterpret(64);
        MemorySegment h1 = MemorySegment.ofAddress(iov.get(ValueLayout.JAVA_LONG, 32)).reinterpret(64);
        assertThat(h0.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x1111);
        assertThat(h1.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x2222);
        assertThat(iov.get(ValueLayout.JAVA_LONG, 16)).isEqualTo(payload.address());
        assertThat(iov.get(ValueLayout.JAVA_LONG, 48)).isEqualTo(payload.address() + 1408);
        assertThat(iov.get(ValueLayout.JAVA_LONG, 56)).isEqualTo(1408);
        MemorySegment control = MemorySegment.ofAddress(msg.get(ValueLayout.JAVA_LONG, Libc.MSG_CONTROL))
                .reinterpret(Libc.CMSG_SPACE_SEGMENT);
        assertThat(msg.get(ValueLayout.JAVA_LONG, Libc.MSG_CONTROLLEN)).isEqualTo(Libc.CMSG_SPACE_SEGMENT);
        assertThat(control.get(ValueLayout.JAVA_INT, 8)).isEqualTo(Libc.SOL_UDP);
        assertThat(control.get(ValueLayout.JAVA_INT, 12)).isEqualTo(Libc.UDP_SEGMENT);
        assertThat(control.get(ValueLayout.JAVA_SHORT, 16)).isEqualTo((short) 1472);

        MemorySegment single = MemorySegment.ofAddress(b.message(false, 1)).reinterpret(Libc.MSGHDR_SIZE);
        assertThat(single.get(ValueLayout.JAVA_LONG, Libc.MSG_IOVLEN)).isEqualTo(2);
        assertThat(single.get(ValueLayout.JAVA_LONG, Libc.MSG_CONTROLLEN)).isZero();
        assertThat(single.get(ValueLayout.JAVA_LONG, Libc.MSG_IOV)).isEqualTo(iov.address() + 32);
        assertThat(b.length(1)).isEqualTo(1472);
        b.clear();
        assertThat(b.count()).isZero();
    }
}
