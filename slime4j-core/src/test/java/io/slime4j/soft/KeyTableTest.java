package io.slime4j.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.AccessFlags;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyTableTest {
    private final KeyTable table = new KeyTable();
    private final MemorySegment segment = Arena.ofAuto().allocate(4096);

    @Test
    void boundsChecksCannotBeFooledByOverflow() {
        KeyTable.Entry e = table.register(segment, AccessFlags.ALL, null);
        long a = e.address;
        assertThat(e.offsetOf(a, 4096)).isZero();
        assertThat(e.offsetOf(a + 4095, 1)).isEqualTo(4095);
        assertThat(e.offsetOf(a + 4096, 0)).isEqualTo(4096);
        assertThat(e.offsetOf(a + 4096, 1)).isEqualTo(-1);
        assertThat(e.offsetOf(a - 1, 1)).isEqualTo(-1);
        assertThat(e.offsetOf(a + 1, Long.MAX_VALUE)).isEqualTo(-1);
        assertThat(e.offsetOf(Long.MAX_VALUE, 2)).isEqualTo(-1);
        assertThat(e.offsetOf(-1L, 1)).as("an address past 2^63 compares unsigned").isEqualTo(-1);
        assertThat(e.offsetOf(a, -1)).isEqualTo(-1);
    }

    @Test
    void aDeregisteredKeyMissesEvenWhenItsSlotIsReused() {
        KeyTable.Entry first = table.register(segment, AccessFlags.ALL, null);
        table.deregister(first);
        assertThat(table.byRemoteKey(first.remoteKey)).isNull();
        assertThat(table.byLocalKey(first.localKey)).isNull();
        KeyTable.Entry second = table.register(segment, AccessFlags.ALL, null);
        assertThat(table.byRemoteKey(first.remoteKey)).isNull();
        assertThat(table.byRemoteKey(second.remoteKey)).isSameAs(second);
        assertThat(table.byLocalKey(second.remoteKey)).as("a remote key is not a local key").isNull();
    }

    @Test
    void keysCarryRandomTagsAndTheTableGrows() {
        Set<Long> keys = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            KeyTable.Entry e = table.register(segment, AccessFlags.LOCAL_WRITE, null);
            assertThat(keys.add(e.localKey)).isTrue();
            assertThat(keys.add(e.remoteKey)).isTrue();
            assertThat(e.remoteKey >>> KeyTable.INDEX_BITS).isNotZero();
        }
        assertThat(table.byLocalKey(0)).isNull();
        assertThat(table.byRemoteKey(-1)).isNull();
    }
}
