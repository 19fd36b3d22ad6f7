package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.F_ACK;
import static io.slime4j.soft.HeaderFlyweight.F_FIRST;
import static io.slime4j.soft.HeaderFlyweight.F_RESENT;
import static io.slime4j.soft.HeaderFlyweight.HEADER_LENGTH;
import static io.slime4j.soft.HeaderFlyweight.TYPE_READ_REQ;
import static io.slime4j.soft.HeaderFlyweight.TYPE_WRITE;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import org.junit.jupiter.api.Test;

/**
 * Which receives the engine may judge duplicates by their first header alone, so that the wire
 * drops them unread ({@link PacketDispatcher#discardable}, docs/WIRE.md "Duplicates dropped
 * unread"): equal-sized WRITE datagrams, counted on from the first PSN; never a coalesced run whose
 * first packet was resent (a run of resent packets need not hold consecutive PSNs).
 */
class DiscardableReceiveTest {
    private static final int SIZE = HEADER_LENGTH + 1_408;
    private final DataFrame d = new DataFrame().wrap(Arena.ofAuto().allocate(HEADER_LENGTH));

    private DataFrame write(int flags) {
        d.start(TYPE_WRITE, flags | F_ACK, 7, 42L, 1_000);
        d.messageLength(1 << 20);
        return d;
    }

    @Test
    void aRunOfEqualSizedNewWritePacketsCountsAllItsDatagrams() {
        assertThat(PacketDispatcher.discardable(write(0), 44 * SIZE, SIZE)).isEqualTo(44);
    }

    @Test
    void aRunWhoseFirstPacketWasResentIsNeverJudgedByIt() {
        assertThat(PacketDispatcher.discardable(write(F_RESENT), 44 * SIZE, SIZE)).isZero();
    }

    @Test
    void aSingleResentDatagramIsOnlyItselfAndMayBeJudged() {
        assertThat(PacketDispatcher.discardable(write(F_RESENT | F_FIRST), SIZE, 0)).isEqualTo(1);
        assertThat(PacketDispatcher.discardable(write(F_RESENT), SIZE, SIZE)).as("a coalesced receive of one").isEqualTo(1);
    }

    @Test
    void aRunEndingInAShorterDatagramDoesNotQualify() {
        assertThat(PacketDispatcher.discardable(write(0), 2 * SIZE + 800, SIZE)).isZero();
    }

    @Test
    void onlyWritePacketsQualify() {
        d.start(TYPE_READ_REQ, F_ACK, 7, 42L, 1_000);
        assertThat(PacketDispatcher.discardable(d, SIZE, 0)).isZero();
    }

    @Test
    void aHeaderAloneOrAMalformedOneDoesNotQualify() {
        assertThat(PacketDispatcher.discardable(write(0), HEADER_LENGTH, 0)).isZero();
        write(0).segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 99); // another version
        assertThat(PacketDispatcher.discardable(d, SIZE, 0)).isZero();
    }
}
