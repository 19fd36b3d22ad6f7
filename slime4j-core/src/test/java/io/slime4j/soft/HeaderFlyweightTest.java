package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class HeaderFlyweightTest {
    private final MemorySegment buffer = Arena.ofAuto().allocate(HEADER_LENGTH + 1024);
    private final HeaderFlyweight h = new HeaderFlyweight().wrap(buffer);

    @Test
    void everyFieldReadsBackWhatWasWrittenInLittleEndianAtItsOffset() {
        h.start(TYPE_WRITE, F_FIRST | F_LAST | F_ACK, 0x01020304, 0x1122334455667788L, -2)
                .ackPsn(Integer.MIN_VALUE).address(-1L).rkey(0x0A0B0C0D0E0F1011L).immediate(0xCAFEBABE)
                .length(1 << 30).operand1(Long.MIN_VALUE).operand2(42);
        assertThat(h.version()).isEqualTo(VERSION);
        assertThat(h.type()).isEqualTo(TYPE_WRITE);
        assertThat(h.flags()).isEqualTo(F_FIRST | F_LAST | F_ACK);
        assertThat(h.destQpn()).isEqualTo(0x01020304);
        assertThat(h.token()).isEqualTo(0x1122334455667788L);
        assertThat(h.psn()).isEqualTo(-2);
        assertThat(h.ackPsn()).isEqualTo(Integer.MIN_VALUE);
        assertThat(h.address()).isEqualTo(-1L);
        assertThat(h.rkey()).isEqualTo(0x0A0B0C0D0E0F1011L);
        assertThat(h.immediate()).isEqualTo(0xCAFEBABE);
        assertThat(h.length()).isEqualTo(1 << 30);
        assertThat(h.operand1()).isEqualTo(Long.MIN_VALUE);
        assertThat(h.operand2()).isEqualTo(42);
        // little-endian on the wire: the low byte of the queue pair number comes first
        assertThat(buffer.get(java.lang.foreign.ValueLayout.JAVA_BYTE, DEST_QPN_OFFSET)).isEqualTo((byte) 0x04);
    }

    @Test
    void packetsShorterThanTheHeaderOrWithAnotherVersionOrTypeAreMalformed() {
        h.start(TYPE_SEND, 0, 1, 1, 0);
        assertThat(h.isWellFormed(HEADER_LENGTH)).isTrue();
        assertThat(h.isWellFormed(HEADER_LENGTH - 1)).isFalse();
        buffer.set(java.lang.foreign.ValueLayout.JAVA_BYTE, VERSION_OFFSET, (byte) 2);
        assertThat(h.isWellFormed(HEADER_LENGTH)).isFalse();
        h.start(0, 0, 1, 1, 0);
        assertThat(h.isWellFormed(HEADER_LENGTH)).isFalse();
        h.start(TYPE_MAX + 1, 0, 1, 1, 0);
        assertThat(h.isWellFormed(HEADER_LENGTH)).isFalse();
        h.start(TYPE_ATOMIC_REQ, 0, 1, 1, 0);
        assertThat(h.isWellFormed(HEADER_LENGTH + 7)).as("atomic without its swap word").isFalse();
        assertThat(h.isWellFormed(HEADER_LENGTH + 8)).isTrue();
    }

    @Test
    void anAckMustHoldTheSackBitmapItAnnounces() {
        h.start(TYPE_ACK, 0, 1, 1, 0).length(65);
        assertThat(h.isWellFormed(HEADER_LENGTH + 8)).isFalse();
        assertThat(h.isWellFormed(HEADER_LENGTH + 16)).isTrue();
        h.length(-1);
        assertThat(h.isWellFormed(HEADER_LENGTH + 16)).isFalse();
        h.length(MAX_SACK_BITS + 1);
        assertThat(h.isWellFormed(HEADER_LENGTH + 2048)).isFalse();
    }

    @Test
    void sequenceNumbersCompareAcrossTheWrap() {
        assertThat(before(Integer.MAX_VALUE, Integer.MIN_VALUE)).isTrue();
        assertThat(before(-1, 0)).isTrue();
        assertThat(before(0, -1)).isFalse();
        assertThat(before(5, 5)).isFalse();
    }
}
