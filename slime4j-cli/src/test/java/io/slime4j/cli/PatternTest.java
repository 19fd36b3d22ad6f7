package io.slime4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class PatternTest {
    @Test
    void theCheckFindsTheFirstWrongByteInAnyRangeAndOnlyForItsSeed() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(4096, 8);
            for (long[] range : new long[][] {{0, 4096}, {3, 4093}, {5, 6}, {8, 16}, {1000, 1001}}) {
                s.fill((byte) 0);
                Pattern.fill(s, range[0], range[1], 42);
                assertThat(Pattern.firstMismatch(s, range[0], range[1], 42)).isEqualTo(-1);
                assertThat(Pattern.firstMismatch(s, range[0], range[1], 43)).as("another seed").isIn(range[0], range[0] + 1L,
                        range[0] + 2L, range[0] + 3L);
                for (long at : new long[] {range[0], (range[0] + range[1]) / 2, range[1] - 1}) {
                    byte b = s.get(ValueLayout.JAVA_BYTE, at);
                    s.set(ValueLayout.JAVA_BYTE, at, (byte) ~b);
                    assertThat(Pattern.firstMismatch(s, range[0], range[1], 42)).isEqualTo(at);
                    s.set(ValueLayout.JAVA_BYTE, at, b);
                }
                if (range[0] > 0) {
                    assertThat(s.get(ValueLayout.JAVA_BYTE, range[0] - 1)).as("nothing before the range").isZero();
                }
            }
            assertThat(Pattern.at(42, 9)).isEqualTo((byte) (Pattern.word(42, 1) >>> 8));
        }
    }
}
