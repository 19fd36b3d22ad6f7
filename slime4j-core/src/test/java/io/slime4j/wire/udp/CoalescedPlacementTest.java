package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.wire.PlacingPacketHandler;
import io.slime4j.wire.WireAddress;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The placement of a whole coalesced receive (GSO run sent, GRO run received, on loopback at
 * 1,016-byte datagrams): every datagram's payload lands back to back at the place the handler
 * allowed for the run, each handed over as placed once the handler confirms it; from the first it
 * does not confirm, the rest arrive whole and byte-exact; without room for the run only the first
 * is placed (docs/WIRE.md, "UDP GSO and GRO").
 */
@Timeout(20)
class CoalescedPlacementTest {
    private static final int HEADER = 16;
    private static final int PAYLOAD = 1_000;
    private static final int LAST_PAYLOAD = 500;
    private static final int COUNT = 10;
    private static final int TOTAL = (COUNT - 1) * PAYLOAD + LAST_PAYLOAD;

    private final UdpWire wire = new UdpWire(UdpConfig.builder().backend(UdpConfig.Backend.NATIVE).build());
    private final Arena arena = Arena.ofShared();

    @BeforeAll
    static void nativeBackendAvailable() {
        assertThat(UdpConfig.Backend.nativeUnavailability()).as("native udp backend unavailable").isNull();
    }

    @AfterEach
    void close() {
        wire.close();
        arena.close();
    }

    @Test
    void aCoalescedRunIsPlacedWholeBackToBackAndEachDatagramHandedOverAsPlaced() {
        RunPlacing h = new RunPlacing(arena.allocate(TOTAL + 100), TOTAL);
        UdpPort b = sendRun();

        assertThat(h.drain(b, COUNT)).isEqualTo(COUNT);

        assertThat(h.placed).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(h.whole).isEmpty();
        assertThat(h.target.asSlice(0, TOTAL).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(payloads());
        assertThat(h.target.asSlice(TOTAL, 100).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0);
        assertThat(b.stats().groReceives()).as("the run arrived coalesced").isEqualTo(1);
        assertThat(b.stats().placedDatagramsReceived()).isEqualTo(COUNT);
        assertThat(b.stats().coalescedDatagramsReceived()).isEqualTo(COUNT - 1);
        assertThat(b.stats().datagramsReceived()).isEqualTo(COUNT);
        assertThat(b.stats().bytesReceived()).isEqualTo(TOTAL + COUNT * HEADER);
    }

    @Test
    void theHandlerTakesPartOfTheRunInOneGoAndTheRestOneAtATime() {
        RunPlacing h = new RunPlacing(arena.allocate(TOTAL + 100), TOTAL);
        h.runTakes = 5; // datagrams 1..5 in one go; 6..9 confirmed one at a time
        UdpPort b = sendRun();

        assertThat(h.drain(b, COUNT)).isEqualTo(COUNT);

        assertThat(h.runsAsked).as("asked once, right after the first datagram: first, count, last")
                .containsExactly(List.of(1, COUNT, HEADER + LAST_PAYLOAD));
        assertThat(h.placed).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(h.confirmed).as("only those after the run").containsExactly(6, 7, 8, 9);
        assertThat(h.whole).isEmpty();
        assertThat(h.target.asSlice(0, TOTAL).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(payloads());
        assertThat(b.stats().placedDatagramsReceived()).isEqualTo(COUNT);
        assertThat(b.stats().coalescedDatagramsReceived()).isEqualTo(COUNT - 1);
        assertThat(b.stats().datagramsReceived()).isEqualTo(COUNT);
        assertThat(b.stats().bytesReceived()).isEqualTo(TOTAL + COUNT * HEADER);
    }

    @Test
    void aRunTakenWholeInOneGoCountsTheShortLastDatagram() {
        RunPlacing h = new RunPlacing(arena.allocate(TOTAL + 100), TOTAL);
        h.runTakes = COUNT;
        UdpPort b = sendRun();

        assertThat(h.drain(b, COUNT)).isEqualTo(COUNT);

        assertThat(h.placed).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(h.confirmed).isEmpty();
        assertThat(h.target.asSlice(0, TOTAL).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(payloads());
        assertThat(b.stats().placedDatagramsReceived()).isEqualTo(COUNT);
        assertThat(b.stats().datagramsReceived()).isEqualTo(COUNT);
        assertThat(b.stats().bytesReceived()).isEqualTo(TOTAL + COUNT * HEADER);
    }

    @Test
    void fromTheFirstDatagramNotConfirmedTheRestArriveWholeAndByteExact() {
        RunPlacing h = new RunPlacing(arena.allocate(TOTAL), TOTAL);
        h.refuse = 4;
        UdpPort b = sendRun();

        assertThat(h.drain(b, COUNT)).isEqualTo(COUNT);

        assertThat(h.placed).containsExactly(0, 1, 2, 3);
        assertThat(h.whole).hasSize(COUNT - 4);
        for (int i = 4; i < COUNT; i++) {
            assertThat(h.whole.get(i - 4)).isEqualTo(datagram(i));
        }
        assertThat(h.target.asSlice(0, 4 * PAYLOAD).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(Arrays.copyOf(payloads(), 4 * PAYLOAD));
        assertThat(b.stats().groReceives()).isEqualTo(1);
        assertThat(b.stats().placedDatagramsReceived()).isEqualTo(4);
        assertThat(b.stats().datagramsReceived()).isEqualTo(COUNT);
    }

    @Test
    void withoutRoomForTheRunOnlyTheFirstIsPlacedAndTheRestArriveWhole() {
        RunPlacing h = new RunPlacing(arena.allocate(TOTAL), TOTAL - 1); // one byte short
        UdpPort b = sendRun();

        assertThat(h.drain(b, COUNT)).isEqualTo(COUNT);

        assertThat(h.placed).containsExactly(0);
        assertThat(h.whole).hasSize(COUNT - 1);
        for (int i = 1; i < COUNT; i++) {
            assertThat(h.whole.get(i - 1)).isEqualTo(datagram(i));
        }
        assertThat(b.stats().placedDatagramsReceived()).isEqualTo(1);
        assertThat(b.stats().datagramsReceived()).isEqualTo(COUNT);
    }

    @Test
    void aRunTheHandlerHasNoUseForIsDroppedUnreadAndTheNextRunIsStillPlaced() {
        RunPlacing h = new RunPlacing(arena.allocate(TOTAL + 100), TOTAL);
        h.discardOld = true;
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        sendRun(a, b, 0, 5);
        sendRun(a, b, 0, 5); // the same five again: a duplicated run
        sendRun(a, b, 5, COUNT);
        Datagrams.settle();

        assertThat(h.drain(b, COUNT)).isEqualTo(COUNT);

        assertThat(h.placed).as("the run after the dropped one was peeked and placed, not taken whole")
                .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(h.whole).isEmpty();
        assertThat(h.discardAsked).as("length and segment size of the dropped run")
                .containsExactly(5 * (HEADER + PAYLOAD), HEADER + PAYLOAD);
        assertThat(h.target.asSlice(0, TOTAL).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(payloads());
        assertThat(b.stats().discardedDatagrams()).isEqualTo(5);
        assertThat(b.stats().datagramsReceived()).isEqualTo(COUNT);
        assertThat(b.stats().bytesReceived()).isEqualTo(TOTAL + COUNT * HEADER);
    }

    @Test
    void aDeclinedCoalescedRunIsTakenWholeAndTheNextRunIsStillPeekedAndPlaced() {
        RunPlacing h = new RunPlacing(arena.allocate(TOTAL + 100), TOTAL);
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        sendRun(a, b, 0, 5);
        sendRun(a, b, 0, 5); // declined (not the next), and not dropped: this handler keeps everything
        sendRun(a, b, 5, COUNT);
        Datagrams.settle();

        assertThat(h.drain(b, COUNT + 5)).isEqualTo(COUNT + 5);

        assertThat(h.whole).as("only the declined run taken whole").hasSize(5);
        assertThat(h.placed).as("no back-off from peeking after a declined coalesced receive")
                .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(h.target.asSlice(0, TOTAL).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(payloads());
        assertThat(b.stats().discardedDatagrams()).isZero();
    }

    @Test
    void theBackOffFromPeekingAfterADeclineCountsDatagramsNotEmptyPolls() {
        RunPlacing h = new RunPlacing(arena.allocate(TOTAL + 100), TOTAL);
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        sendOne(a, b, 5); // not the next: declined and taken whole
        Datagrams.settle();
        assertThat(h.drain(b, 1)).isEqualTo(1);
        for (int i = 0; i < 20; i++) {
            assertThat(b.receive(h, 1)).as("an empty poll, as a spinning thread makes").isZero();
        }
        sendOne(a, b, 6); // the next one: placeable, but the back-off after the decline still runs
        Datagrams.settle();

        assertThat(h.drain(b, 1)).isEqualTo(1);

        assertThat(h.placed).as("received whole without a peek (20 empty polls did not end the back-off)").isEmpty();
        assertThat(h.whole).hasSize(2);
        assertThat(h.whole.get(1)).isEqualTo(datagram(6));
    }

    @Test
    void aCoalescedRunTakenWholeDuringTheBackOffEndsIt() {
        RunPlacing h = new RunPlacing(arena.allocate(TOTAL + 100), TOTAL);
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        sendOne(a, b, 5); // not the next: declined, and the back-off from peeking begins
        Datagrams.settle();
        assertThat(h.drain(b, 1)).isEqualTo(1);
        sendRun(a, b, 6, 8); // a run, taken whole while backing off
        Datagrams.settle();
        assertThat(h.drain(b, 2)).isEqualTo(2);
        sendRun(a, b, 8, COUNT);
        Datagrams.settle();

        assertThat(h.drain(b, 2)).isEqualTo(2);

        assertThat(h.placed).as("the next run peeked and placed again: one peek serves a run").containsExactly(8, 9);
        assertThat(h.whole).hasSize(3);
    }

    /** Sends datagram {@code i} alone from {@code a} to {@code b}. */
    private void sendOne(UdpPort a, UdpPort b, int i) {
        MemorySegment header = arena.allocate(HEADER);
        header.copyFrom(MemorySegment.ofArray(Arrays.copyOf(datagram(i), HEADER)));
        MemorySegment payloads = arena.allocate(TOTAL);
        payloads.copyFrom(MemorySegment.ofArray(payloads()));
        assertThat(a.send(b.localAddress(), header, HEADER, payloads, (long) i * PAYLOAD, PAYLOAD, false)).isTrue();
        a.flush();
    }

    /** Sends datagrams {@code from} to {@code to} (exclusive) from {@code a} to {@code b} as one GSO run. */
    private void sendRun(UdpPort a, UdpPort b, int from, int to) {
        MemorySegment headers = arena.allocate((long) COUNT * HEADER);
        MemorySegment payloads = arena.allocate(TOTAL);
        payloads.copyFrom(MemorySegment.ofArray(payloads()));
        a.flush();
        long runs = a.stats().gsoSends();
        for (int i = from; i < to; i++) {
            MemorySegment header = headers.asSlice((long) i * HEADER, HEADER);
            header.copyFrom(MemorySegment.ofArray(Arrays.copyOf(datagram(i), HEADER)));
            assertThat(a.send(b.localAddress(), header, HEADER, payloads, (long) i * PAYLOAD,
                    i < COUNT - 1 ? PAYLOAD : LAST_PAYLOAD, false)).isTrue();
        }
        a.flush();
        assertThat(a.stats().gsoSends()).isEqualTo(runs + 1);
    }

    /** Sends the run as one GSO burst from a fresh port to another; returns the receiving one. */
    private UdpPort sendRun() {
        UdpPort a = wire.bind("");
        UdpPort b = wire.bind("");
        assertThat(a.offloads()).contains("gso on").contains("gro on");
        MemorySegment headers = arena.allocate((long) COUNT * HEADER);
        MemorySegment payloads = arena.allocate(TOTAL);
        payloads.copyFrom(MemorySegment.ofArray(payloads()));
        a.flush(); // this thread's sends are held and leave as one run
        for (int i = 0; i < COUNT; i++) {
            MemorySegment header = headers.asSlice((long) i * HEADER, HEADER);
            header.copyFrom(MemorySegment.ofArray(Arrays.copyOf(datagram(i), HEADER)));
            assertThat(a.send(b.localAddress(), header, HEADER, payloads, (long) i * PAYLOAD,
                    i < COUNT - 1 ? PAYLOAD : LAST_PAYLOAD, false)).isTrue();
        }
        a.flush();
        assertThat(a.stats().gsoSends()).isEqualTo(1);
        Datagrams.settle();
        return b;
    }

    private static byte[] payloads() {
        return Datagrams.bytes(TOTAL, 77);
    }

    /** Datagram {@code i} as sent: a header whose first byte is {@code i}, then its payload. */
    private static byte[] datagram(int i) {
        int length = i < COUNT - 1 ? PAYLOAD : LAST_PAYLOAD;
        byte[] d = new byte[HEADER + length];
        Arrays.fill(d, 0, HEADER, (byte) (100 + i));
        d[0] = (byte) i;
        System.arraycopy(payloads(), i * PAYLOAD, d, HEADER, length);
        return d;
    }

    /**
     * Places datagram {@code i} (the first header byte) at {@code i * PAYLOAD} of its target while
     * they come in order, allows {@code room} bytes from the first place for a run, predicts the
     * next datagram's place after each, and confirms all but the one numbered {@code refuse}.
     */
    private static final class RunPlacing implements PlacingPacketHandler {
        final MemorySegment target;
        final long room;
        int refuse = -1;
        /** How many datagrams {@link #onPlacedRun} takes at most (each checked where its header lies). */
        int runTakes;
        final List<List<Integer>> runsAsked = new ArrayList<>();
        final List<Integer> confirmed = new ArrayList<>();
        /** Whether a run starting with a datagram placed already may be dropped unread. */
        boolean discardOld;
        final List<Integer> discardAsked = new ArrayList<>();
        int next;
        long offset;
        final List<Integer> placed = new ArrayList<>();
        final List<byte[]> whole = new ArrayList<>();

        RunPlacing(MemorySegment target, long room) {
            this.target = target;
            this.room = room;
        }

        @Override
        public int headerLength() {
            return HEADER;
        }

        @Override
        public boolean place(MemorySegment header, int length, WireAddress from) {
            int i = header.get(ValueLayout.JAVA_BYTE, 0);
            if (i != next || i == refuse) {
                return false;
            }
            offset = (long) i * PAYLOAD;
            return true;
        }

        @Override
        public MemorySegment placementSegment() {
            return target;
        }

        @Override
        public long placementOffset() {
            return offset;
        }

        @Override
        public long placementRoom() {
            return room - offset;
        }

        @Override
        public boolean predictNext() {
            offset = (long) next * PAYLOAD;
            return next < COUNT;
        }

        @Override
        public int predictedPayloadLength() {
            return PAYLOAD;
        }

        @Override
        public boolean confirm(MemorySegment header, int length, WireAddress from) {
            long predicted = offset;
            boolean yes = place(header, length, from) && offset == predicted;
            if (yes) {
                confirmed.add(next);
            }
            return yes;
        }

        @Override
        public int onPlacedRun(MemorySegment buffer, int segment, int first, int count, int last, WireAddress from) {
            runsAsked.add(List.of(first, count, last));
            int taken = 0;
            for (int i = first; i < count && taken < runTakes; i++) {
                assertThat(buffer.asSlice((long) i * segment, HEADER).toArray(ValueLayout.JAVA_BYTE))
                        .as("header of datagram %d where a whole receive puts it", i)
                        .isEqualTo(Arrays.copyOf(datagram(i), HEADER));
                assertThat(i < count - 1 ? segment : last).isEqualTo(datagram(i).length);
                placed.add(next++);
                taken++;
            }
            return taken;
        }

        @Override
        public boolean discard(MemorySegment header, int length, int segment, WireAddress from) {
            if (!discardOld || header.get(ValueLayout.JAVA_BYTE, 0) >= next) {
                return false;
            }
            discardAsked.add(length);
            discardAsked.add(segment);
            return true;
        }

        @Override
        public void onPlacedPacket(MemorySegment packet, int length, WireAddress from) {
            assertThat(packet.asSlice(0, HEADER).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(Arrays.copyOf(datagram(next), HEADER));
            placed.add(next++);
        }

        @Override
        public void onPacket(MemorySegment packet, int length, WireAddress from) {
            whole.add(packet.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
            next = Math.max(next, packet.get(ValueLayout.JAVA_BYTE, 0) + 1); // a repeated one moves nothing
        }

        int drain(UdpPort port, int n) {
            int got = 0;
            for (int i = 0; i < 500 && got < n; i++) {
                got += port.receive(this, n - got);
                if (got < n) {
                    Datagrams.settle();
                }
            }
            return got;
        }
    }
}
