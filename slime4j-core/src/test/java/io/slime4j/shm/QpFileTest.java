package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.verbs.QpConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * A queue-pair file's ring entries are sliced once and kept, and a view of a peer's file refuses a
 * ring no queue pair makes or that its own words say does not fit the mapping (the capacity sizes
 * the view's slice cache, so a peer must not be able to make it huge).
 */
class QpFileTest {
    @Test
    void anEntryIsTheSameSliceEveryTimeItsSlotComesRound() {
        QpFile f = QpFile.create(8, 2, 1L, 1L, 0);
        try {
            assertThat(f.entry(3)).isSameAs(f.entry(3)).isSameAs(f.entry(3 + 8));
            assertThat(f.entry(4)).isNotSameAs(f.entry(3));
            assertThat(f.entry(4).address() - f.entry(3).address()).isEqualTo(f.entrySize);
            assertThat(f.entry(7).address() + f.entrySize).isEqualTo(f.segment.address() + f.segment.byteSize());
        } finally {
            f.close();
        }
    }

    @Test
    void aViewOfAFileWhoseRingDoesNotFitIsRefused() {
        QpFile f = QpFile.create(8, 2, 1L, 1L, 0);
        try {
            assertThat(QpFile.view(f.segment).capacity).isEqualTo(8);
            for (int bad : new int[] {16, 6, 0, -8, 1 << 30}) {
                f.segment.set(ValueLayout.JAVA_INT, Layout.QP_CAPACITY, bad);
                assertThatThrownBy(() -> QpFile.view(f.segment)).as("capacity %d", bad)
                        .isInstanceOf(ShmException.class).hasMessageContaining("holds no ring of " + bad + " entries");
            }
            f.segment.set(ValueLayout.JAVA_INT, Layout.QP_CAPACITY, 8);
            for (int bad : new int[] {0, 1, (int) Layout.entrySize(2) + 1}) { // not what its scatter/gather entries need
                f.segment.set(ValueLayout.JAVA_INT, Layout.QP_ENTRY_SIZE, bad);
                assertThatThrownBy(() -> QpFile.view(f.segment)).as("entry size %d", bad).isInstanceOf(ShmException.class);
            }
            f.segment.set(ValueLayout.JAVA_INT, Layout.QP_ENTRY_SIZE, (int) Layout.entrySize(0)); // fits, matches 0 entries
            f.segment.set(ValueLayout.JAVA_INT, Layout.QP_MAX_SGE, 0);
            assertThatThrownBy(() -> QpFile.view(f.segment)).as("max SGE 0").isInstanceOf(ShmException.class);
        } finally {
            f.close();
        }
    }

    @Test
    void aViewOfALargerRingThanAnyQueuePairMakesIsRefusedEvenWhenItFits() {
        int capacity = QpFile.MAX_CAPACITY * 2;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment s = SharedMemory.allocate(Layout.qpFileSize(capacity, 1), arena); // fits: a peer can size its file
            s.set(ValueLayout.JAVA_INT, Layout.QP_MAX_SGE, 1);
            s.set(ValueLayout.JAVA_INT, Layout.QP_CAPACITY, capacity);
            s.set(ValueLayout.JAVA_INT, Layout.QP_ENTRY_SIZE, (int) Layout.entrySize(1));
            Layout.setVolatile(s, Layout.QP_MAGIC, Layout.MAGIC);
            assertThatThrownBy(() -> QpFile.view(s)).isInstanceOf(ShmException.class)
                    .hasMessageContaining("holds no ring of " + capacity + " entries");
            s.set(ValueLayout.JAVA_INT, Layout.QP_CAPACITY, QpFile.MAX_CAPACITY);
            assertThat(QpFile.view(s).capacity).as("the largest ring a queue pair makes").isEqualTo(QpFile.MAX_CAPACITY);
        }
    }

    @Test
    void aViewOfMoreScatterGatherEntriesThanARequestHasIsRefusedEvenWhenItFits() {
        int maxSge = QpConfig.MAX_SGE + 1;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment s = SharedMemory.allocate(Layout.qpFileSize(8, maxSge), arena);
            s.set(ValueLayout.JAVA_INT, Layout.QP_MAX_SGE, maxSge);
            s.set(ValueLayout.JAVA_INT, Layout.QP_CAPACITY, 8);
            s.set(ValueLayout.JAVA_INT, Layout.QP_ENTRY_SIZE, (int) Layout.entrySize(maxSge));
            Layout.setVolatile(s, Layout.QP_MAGIC, Layout.MAGIC);
            assertThatThrownBy(() -> QpFile.view(s)).isInstanceOf(ShmException.class)
                    .hasMessageContaining("(" + maxSge + " scatter/gather entries)");
            s.set(ValueLayout.JAVA_INT, Layout.QP_MAX_SGE, QpConfig.MAX_SGE); // the same file, at the bound
            s.set(ValueLayout.JAVA_INT, Layout.QP_ENTRY_SIZE, (int) Layout.entrySize(QpConfig.MAX_SGE));
            assertThat(QpFile.view(s).capacity).isEqualTo(8);
        }
    }
}
