package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.HEADER_LENGTH;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * What a coalesced receive's datagrams behind a placed WRITE packet must be to be taken as its
 * continuation without the per-packet checks ({@link WritePlacement#continues}): the next PSN, the
 * same message at the next offset, inside it, in a region still valid; headers read in place in a
 * receive buffer ({@link HeaderFlyweight#wrapAt}).
 */
class WritePlacementTest {
    private static final int PAYLOAD = 1_000;
    private static final int MESSAGE = 3 * PAYLOAD + 500;
    private final Arena arena = Arena.ofAuto();
    private final KeyTable keys = new KeyTable();
    private final MemorySegment region = arena.allocate(8192);
    private final KeyTable.Entry entry = keys.register(region, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, null);
    private final RemoteAccess access = new RemoteAccess(keys, null, null);
    private final WritePlacement placement = new WritePlacement();
    /** A receive buffer of 1,064-byte datagrams: header {@code i} at {@code i * STRIDE}. */
    private static final int STRIDE = HEADER_LENGTH + PAYLOAD;
    private final MemorySegment buffer = arena.allocate(8L * STRIDE);
    private final long address = entry.address + 100;

    /** Writes packet {@code i} of the message (PSN 7 + i) into the buffer as a sender builds it. */
    private DataFrame packet(int i) {
        DataFrame d = new DataFrame().wrap(buffer.asSlice((long) i * STRIDE, HEADER_LENGTH));
        d.start(HeaderFlyweight.TYPE_WRITE, i == 3 ? HeaderFlyweight.F_LAST : 0, 5, 42L, 7 + i);
        d.remoteAddress(address + (long) i * PAYLOAD).remoteKey(entry.remoteKey).messageLength(MESSAGE)
                .messageOffset((long) i * PAYLOAD);
        return d;
    }

    private DataFrame inPlace(int i) {
        return new DataFrame().wrapAt(buffer, (long) i * STRIDE);
    }

    private void acceptFirst() {
        DataFrame first = packet(0);
        assertThat(access.checkWrite(first, PAYLOAD)).isEqualTo(RemoteAccess.WriteCheck.OK);
        placement.accept(first, PAYLOAD, access);
    }

    @Test
    void theRestOfTheWriteContinuesItPacketByPacketToItsShortLastOne() {
        for (int i = 0; i < 4; i++) {
            packet(i);
        }
        acceptFirst();
        for (int i = 1; i < 4; i++) {
            int payload = i < 3 ? PAYLOAD : 500;
            assertThat(placement.continues(inPlace(i), payload)).as("packet %d", i).isTrue();
            placement.acceptNext(payload);
            assertThat(placement.segment()).isSameAs(entry.segment);
            assertThat(placement.offset()).as("right behind the last one's payload").isEqualTo(100L + i * PAYLOAD);
            assertThat(placement.length()).isEqualTo(payload);
        }
        assertThat(placement.predictNext(11, false)).as("the message is done").isNull();
    }

    @Test
    void aPacketThatDiffersInAnyFieldTheRunDependsOnIsNoContinuation() {
        assertNoContinuation(d -> d.rawInt(HeaderFlyweight.PSN_OFFSET, 9), "a PSN skipped");
        assertNoContinuation(d -> d.rawInt(HeaderFlyweight.PSN_OFFSET, 7), "the same PSN again");
        assertNoContinuation(d -> d.messageOffset(2L * PAYLOAD).remoteAddress(address + 2L * PAYLOAD), "an offset skipped");
        assertNoContinuation(d -> d.remoteKey(entry.remoteKey + 1), "another key");
        assertNoContinuation(d -> d.remoteAddress(address + PAYLOAD + 8), "another message start");
        assertNoContinuation(d -> d.messageLength(MESSAGE + 1), "another message length");
        assertNoContinuation(d -> d.segment().set(ValueLayout.JAVA_BYTE, HeaderFlyweight.TYPE_OFFSET,
                (byte) HeaderFlyweight.TYPE_SEND), "not a WRITE");
        assertNoContinuation(d -> d.segment().set(ValueLayout.JAVA_BYTE, HeaderFlyweight.VERSION_OFFSET, (byte) 2),
                "another version");
    }

    @Test
    void aPayloadPastTheMessageOrEmptyIsNoContinuation() {
        packet(1);
        acceptFirst();
        assertThat(placement.continues(inPlace(1), MESSAGE - PAYLOAD + 1)).isFalse();
        assertThat(placement.continues(inPlace(1), 0)).isFalse();
        assertThat(placement.continues(inPlace(1), MESSAGE - PAYLOAD)).isTrue();
    }

    @Test
    void noPacketContinuesAWriteIntoADeregisteredRegion() {
        packet(1);
        acceptFirst();
        keys.deregister(entry);
        assertThat(placement.continues(inPlace(1), PAYLOAD)).isFalse();
    }

    private void assertNoContinuation(Consumer<DataFrame> change, String what) {
        DataFrame d = packet(1);
        change.accept(d);
        acceptFirst();
        assertThat(placement.continues(inPlace(1), PAYLOAD)).as(what).isFalse();
    }
}
