package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Assignments built by named steps, one-range reads and writes, and {@link RdmaEndpoint#region(String)}. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AssignmentTest {

    @Test
    void theNamedStepsGiveTheRecordInItsOwnOrder() {
        Assignment a = Assignment.local("src", 1).remote("dst", 2).length(3);
        assertThat(a).isEqualTo(new Assignment("src", 1, "dst", 2, 3));
        assertThat(a.localRegion()).isEqualTo("src");
        assertThat(a.localOffset()).isEqualTo(1);
        assertThat(a.remoteRegion()).isEqualTo("dst");
        assertThat(a.remoteOffset()).isEqualTo(2);
        assertThat(a.length()).isEqualTo(3);
    }

    @Test
    void theLastStepValidatesAndNamesWhatIsWrong() {
        assertThatThrownBy(() -> Assignment.local("kv", -1).remote("kv", 0).length(8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("local -1");
        assertThatThrownBy(() -> Assignment.local("kv", 0).remote("kv", 0).length(-8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length -8");
        assertThatThrownBy(() -> Assignment.local(null, 0).remote("kv", 0).length(8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("region name");
    }

    @Test
    void regionGivesBackTheRegisteredMemoryAndOneRangeOpsMoveBytesToTheNamedOffsets() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 16)) {
            MemorySegment mine = p.a.region("kv");
            assertThat(mine.address()).isEqualTo(p.kvA.address());
            assertThat(mine.byteSize()).isEqualTo(p.kvA.byteSize());
            mine.asSlice(100, 10).fill((byte) 7);
            p.a.write(Assignment.local("kv", 100).remote("kv", 5000).length(10)).join(Duration.ofSeconds(10));
            MemorySegment theirs = p.b.region("kv");
            assertThat(theirs.get(ValueLayout.JAVA_BYTE, 5000)).isEqualTo((byte) 7);
            assertThat(theirs.get(ValueLayout.JAVA_BYTE, 5009)).isEqualTo((byte) 7);
            assertThat(theirs.get(ValueLayout.JAVA_BYTE, 5010)).isZero();
            p.a.read(Assignment.local("kv", 20000).remote("kv", 5000).length(10)).join(Duration.ofSeconds(10));
            assertThat(mine.get(ValueLayout.JAVA_BYTE, 20009)).isEqualTo((byte) 7);
            assertThatThrownBy(() -> p.a.region("nope")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'nope'").hasMessageContaining("kv");
            assertThatThrownBy(() -> p.a.write((Assignment) null)).isInstanceOf(IllegalArgumentException.class);
            p.assertClean();
        }
    }
}
