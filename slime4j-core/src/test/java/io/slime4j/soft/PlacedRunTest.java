package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QueuePair;
import io.slime4j.wire.WireAddress;
import io.slime4j.wire.inproc.InprocWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The receive path of a whole device taking a coalesced receive's continuation of a placed RDMA
 * write in one go ({@link PacketDispatcher#onPlacedRun}): the packets a sender built, laid out as a
 * GRO receive puts them (header {@code i} at {@code i} datagrams in), after the first was placed
 * and handed over. Each is executed, counted and advances the stream only if it routes to the
 * queue pair and continues the write; the run stops at the first that does not, and what it owes
 * (an ACK asked for) is owed.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class PlacedRunTest {
    private static final int PAYLOAD = 1_000;
    private static final int SEGMENT = HEADER_LENGTH + PAYLOAD;
    private static final int COUNT = 6;

    private final InprocWire wire = new InprocWire();
    private final Arena arena = Arena.ofShared();
    private final long now = System.nanoTime();
    private SoftDevice a;
    private SoftDevice b;
    private SoftQueuePair qp;
    private MemoryRegion target;
    private WireAddress from;
    private final MemorySegment buffer = arena.allocate((long) COUNT * SEGMENT);

    @BeforeEach
    void connect() {
        a = SoftDevice.openUndriven(wire.bind("a"), SoftConfig.builder().name("run-a").build());
        b = SoftDevice.openUndriven(wire.bind("b"), SoftConfig.builder().name("run-b").build());
        ProtectionDomain pdA = a.allocateProtectionDomain();
        ProtectionDomain pdB = b.allocateProtectionDomain();
        QpConfig config = QpConfig.defaults();
        QueuePair qpA = a.createQueuePair(pdA, config, a.createCompletionQueue(16), a.createCompletionQueue(16));
        QueuePair qpB = b.createQueuePair(pdB, config, b.createCompletionQueue(16), b.createCompletionQueue(16));
        ConnectedQueuePairs.connect(qpA, qpB);
        qp = (SoftQueuePair) qpB;
        from = qp.peerAddress();
        target = pdB.register(arena.allocate((long) COUNT * PAYLOAD), AccessFlags.ALL);
        b.dispatcher().now(now);
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
        arena.close();
    }

    /** Lays out the write's packets as its sender builds them: one message of COUNT packets, the last asking for an ACK. */
    private void layOut(int messagePackets) {
        int psn = qp.responder().expectedPsn();
        for (int i = 0; i < COUNT; i++) {
            DataFrame d = frame(i);
            int flags = F_ACK | (i == messagePackets - 1 ? F_LAST | F_ACK_REQ : 0);
            d.start(TYPE_WRITE, flags, qp.qpn(), qp.localToken(), psn + i);
            d.ackPsn(0);
            d.remoteAddress(target.address() + (long) i * PAYLOAD).remoteKey(target.remoteKey())
                    .messageLength(messagePackets * PAYLOAD).messageOffset((long) i * PAYLOAD);
        }
    }

    private DataFrame frame(int i) {
        return new DataFrame().wrap(buffer.asSlice((long) i * SEGMENT, HEADER_LENGTH));
    }

    /** Places and hands over the first packet, then offers the rest as a run; returns how many the run took. */
    private int receive() {
        PacketDispatcher d = b.dispatcher();
        MemorySegment first = buffer.asSlice(0, SEGMENT);
        assertThat(d.place(first, SEGMENT, from)).as("the first packet is placed").isTrue();
        d.onPlacedPacket(first, SEGMENT, from);
        return d.onPlacedRun(buffer, SEGMENT, 1, COUNT, SEGMENT, from);
    }

    private long received(Counter c) {
        return qp.countersSet().get(c);
    }

    @Test
    void theRestOfTheWriteIsExecutedCountedAndItsAckRequestOwed() {
        int psn = qp.responder().expectedPsn();
        layOut(COUNT);

        assertThat(receive()).isEqualTo(COUNT - 1);

        assertThat(qp.responder().expectedPsn()).isEqualTo(psn + COUNT);
        assertThat(received(Counter.PACKETS_RECEIVED)).isEqualTo(COUNT);
        assertThat(received(Counter.BYTES_RECEIVED)).isEqualTo((long) COUNT * SEGMENT);
        assertThat(qp.responder().quiet()).as("the last packet asked for an ACK").isFalse();
        assertThat(qp.responder().predictNext()).as("the message is done").isNull();
    }

    @Test
    void theRunStopsAtAPacketOfAnotherTokenOrQueuePair() {
        assertStopsAt(2, d -> d.rawLong(TOKEN_OFFSET, qp.localToken() + 1));
        assertStopsAt(2, d -> d.rawInt(DEST_QPN_OFFSET, qp.qpn() + 1));
    }

    @Test
    void theRunStopsAtTheLastPacketOfAWriteWithAnImmediateWhichConsumesAReceive() {
        assertStopsAt(3, d -> d.flags(F_ACK | F_LAST | F_IMM));
    }

    @Test
    void theRunStopsAtAPacketThatDoesNotContinueTheWrite() {
        assertStopsAt(4, d -> d.messageOffset(5L * PAYLOAD));
    }

    @Test
    void nothingIsTakenWhilePacketsAreHeldAheadOfOrder() {
        layOut(COUNT);
        // another write's packet, ahead of a hole: it is held, so the run's packets must go one at a time
        MemorySegment ahead = arena.allocate(SEGMENT);
        DataFrame h = new DataFrame().wrap(ahead);
        h.start(TYPE_WRITE, F_LAST, qp.qpn(), qp.localToken(), qp.responder().expectedPsn() + COUNT + 3);
        h.remoteAddress(target.address()).remoteKey(target.remoteKey()).messageLength(PAYLOAD).messageOffset(0);
        b.dispatcher().onPacket(ahead, SEGMENT, from);
        int psn = qp.responder().expectedPsn();

        assertThat(receive()).isZero();
        assertThat(qp.responder().expectedPsn()).as("only the placed first one").isEqualTo(psn + 1);
    }

    private void assertStopsAt(int index, Consumer<DataFrame> change) {
        int psn = qp.responder().expectedPsn();
        long packets = received(Counter.PACKETS_RECEIVED);
        layOut(COUNT);
        change.accept(frame(index));

        assertThat(receive()).as("taken before datagram %d", index).isEqualTo(index - 1);
        assertThat(qp.responder().expectedPsn()).isEqualTo(psn + index);
        assertThat(received(Counter.PACKETS_RECEIVED) - packets).isEqualTo(index);
    }
}
