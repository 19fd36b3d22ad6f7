package io.slime4j.soft;

import static io.slime4j.soft.HeaderFlyweight.HEADER_LENGTH;
import static io.slime4j.soft.HeaderFlyweight.MAX_SACK_BITS;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.InboundStream.Arrival;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.Test;

class InboundStreamTest {
    private static final int START = Integer.MAX_VALUE - 1; // crosses the wrap after two packets
    private final InboundStream in = new InboundStream(128);
    private final AckFrame ack = new AckFrame().wrap(Arena.ofAuto().allocate(HEADER_LENGTH + 1024));

    InboundStreamTest() {
        in.start(START);
    }

    @Test
    void classifiesEachArrivalByWhereItFallsInTheWindow() {
        assertThat(in.classify(START)).isEqualTo(Arrival.IN_ORDER);
        assertThat(in.classify(START + 5)).isEqualTo(Arrival.AHEAD);
        assertThat(in.classify(START - 1)).isEqualTo(Arrival.DUPLICATE);
        assertThat(in.classify(START + 127)).isEqualTo(Arrival.AHEAD);
        assertThat(in.classify(START + 128)).isEqualTo(Arrival.OUT_OF_WINDOW);
        in.markAhead(START + 5);
        assertThat(in.classify(START + 5)).as("held already").isEqualTo(Arrival.DUPLICATE);
    }

    @Test
    void reorderedPacketsAreHeldUntilTheHoleIsFilledThenExecutedInOrder() {
        assertThat(in.markAhead(START + 2)).as("opens a hole").isTrue();
        assertThat(in.markAhead(START + 3)).as("extends it").isFalse();
        assertThat(in.markAhead(START + 1)).as("the hole is still at the expected PSN").isTrue();
        assertThat(in.hasHoles()).isTrue();
        assertThat(in.nextIsHeld()).isFalse();

        in.forget(START); // the missing one arrives and executes
        in.advance();
        int executed = 0;
        while (in.nextIsHeld()) {
            in.forget(in.expectedPsn());
            in.advance();
            executed++;
        }
        assertThat(executed).isEqualTo(3);
        assertThat(in.expectedPsn()).isEqualTo(START + 4);
        assertThat(in.hasHoles()).isFalse();
    }

    @Test
    void theSackBitmapReportsEveryArrivalBeyondTheCumulativeAck() {
        assertThat(in.writeSack(ack, MAX_SACK_BITS)).as("nothing held: no bitmap").isZero();
        in.markAhead(START + 1);
        in.markAhead(START + 3);
        in.markAhead(START + 70);
        int bits = in.writeSack(ack, MAX_SACK_BITS);
        assertThat(bits).isEqualTo(70);
        assertThat(ack.sackWord(0)).isEqualTo(0b101L);
        assertThat(ack.sackWord(1)).isEqualTo(1L << 5);
        assertThat(in.writeSack(ack, 64)).as("capped").isEqualTo(64);
    }
}
