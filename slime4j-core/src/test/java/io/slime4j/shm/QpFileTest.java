package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * A queue-pair file's ring entries are sliced once and kept, and a view of a peer's file refuses a
 * ring its own words say does not fit the mapping (the capacity sizes the view's slice cache, so a
 * peer must not be able to make it huge).
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
            f.segment.set(ValueLayout.JAVA_INT, Layout.QP_ENTRY_SIZE, 0);
            assertThatThrownBy(() -> QpFile.view(f.segment)).isInstanceOf(ShmException.class);
        } finally {
            f.close();
        }
    }
}
