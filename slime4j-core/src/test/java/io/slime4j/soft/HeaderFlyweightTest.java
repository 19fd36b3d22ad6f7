package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class HeaderFlyweightTest {
    private final MemorySegment buffer = Arena.ofAuto().allocate(HEADER_LENGTH + 1024);
    private final HeaderFlyweight h = new HeaderFlyweight().wrap(buffer);
    private final DataFrame data = new DataFrame().wrap(buffer);
    private final AckFrame ack = new AckFrame().wrap(buffer);
    private final ResponseFrame response = new ResponseFrame().wrap(buffer);

    @Test
    void everyFieldReadsBackWhatWasWrittenInLittleEndianAtItsOffset() {
        h.start(TYPE_WRITE, F_FIRST | F_LAST | F_ACK, 0x01020304, 0x1122334455667788L, -2)
                .ackPsn(Integer.MIN_VALUE);
        data.remoteAddress(-1L).remoteKey(0x0A0B0C0D0E0F1011L).immediate(0xCAFEBABE)
                .messageLength(1 << 30).messageOffset(Long.MIN_VALUE).msn(42);
        assertThat(h.version()).isEqualTo(VERSION);
        assertThat(h.type()).isEqualTo(TYPE_WRITE);
        assertThat(h.flags()).isEqualTo(F_FIRST | F_LAST | F_ACK);
        assertThat(h.destQpn()).isEqualTo(0x01020304);
        assertThat(h.token()).isEqualTo(0x1122334455667788L);
        assertThat(h.psn()).isEqualTo(-2);
        assertThat(h.ackPsn()).isEqualTo(Integer.MIN_VALUE);
        assertThat(data.remoteAddress()).isEqualTo(-1L);
        assertThat(data.remoteKey()).isEqualTo(0x0A0B0C0D0E0F1011L);
        assertThat(data.immediate()).isEqualTo(0xCAFEBABE);
        assertThat(data.messageLength()).isEqualTo(1 << 30);
        assertThat(data.messageOffset()).isEqualTo(Long.MIN_VALUE);
        assertThat(data.msn()).isEqualTo(42);
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
        h.start(TYPE_ACK, 0, 1, 1, 0);
        ack.sackBits(65);
        assertThat(h.isWellFormed(HEADER_LENGTH + 8)).isFalse();
        assertThat(h.isWellFormed(HEADER_LENGTH + 16)).isTrue();
        ack.sackBits(-1);
        assertThat(h.isWellFormed(HEADER_LENGTH + 16)).isFalse();
        ack.sackBits(MAX_SACK_BITS + 1);
        assertThat(h.isWellFormed(HEADER_LENGTH + 2048)).isFalse();
    }

    @Test
    void sequenceNumbersCompareAcrossTheWrap() {
        assertThat(before(Integer.MAX_VALUE, Integer.MIN_VALUE)).isTrue();
        assertThat(before(-1, 0)).isTrue();
        assertThat(before(0, -1)).isFalse();
        assertThat(before(5, 5)).isFalse();
    }

    @Test
    void eachFrameKindNamesTheSharedSlotsAtTheSameOffsetsAsBefore() {
        h.start(TYPE_ACK, F_GO_BACK, 1, 1, 7).ackPsn(5);
        ack.window(1 << 20).syndrome(SYNDROME_RNR_NAK).sackBits(64).sackWord(0, 0b101);
        assertThat(buffer.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, RKEY_OFFSET)).as("window in the key slot")
                .isEqualTo(1 << 20);
        assertThat(buffer.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, OPERAND2_OFFSET)).as("syndrome")
                .isEqualTo(SYNDROME_RNR_NAK);
        assertThat(buffer.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, LENGTH_OFFSET)).isEqualTo(64);
        assertThat(ack.goBack()).isTrue();
        assertThat(ack.sackWord(0)).isEqualTo(0b101);
        assertThat(ack.isWellFormed(HEADER_LENGTH + 8)).isTrue();

        h.start(TYPE_READ_RESP, F_ERROR, 1, 1, 8);
        response.ssn(99).readOffset(4096).readLength(8192).errorStatus(3);
        assertThat(buffer.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, OPERAND1_OFFSET)).isEqualTo(99);
        assertThat(buffer.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, ADDRESS_OFFSET)).isEqualTo(4096);
        assertThat(buffer.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, IMMEDIATE_OFFSET)).isEqualTo(3);
        assertThat(response.isError()).isTrue();
        assertThat(response.readLength()).isEqualTo(8192);

        h.start(TYPE_ATOMIC_REQ, 0, 1, 1, 9);
        data.ssn(4).compareAdd(-7).swap(11);
        assertThat(buffer.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, OPERAND2_OFFSET)).isEqualTo(-7);
        assertThat(buffer.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, HEADER_LENGTH)).isEqualTo(11);
    }
}
