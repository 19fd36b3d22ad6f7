package io.slime4j.shm;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.Opcode;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.WcStatus;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request whose ring entry a broken peer wrote with a negative length is refused by the responder
 * (REM_INV_REQ_ERR, as a NAK): nothing is copied and no receive completes as a success with a
 * negative byte count. The entry is rewritten while the responder's device is held off its duty
 * cycles (the test holds its progress right), after the requester published it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BadRingEntryTest {
    @Test
    void aSendOfNegativeLengthIsNakedAndNoReceiveCompletes() throws Exception {
        try (Arena arena = Arena.ofShared(); ShmPair c = ShmPair.open("bad-entry", false, arena)) {
            ShmDevice b = c.b();
            MemoryRegion src = c.src();
            MemoryRegion dst = c.dst();
            CompletionQueue scq = c.scq();
            CompletionQueue rcq = c.rcq();
            QueuePair qa = c.qa();
            QueuePair qb = c.qb();
            WorkRequest wr = new WorkRequest();
            WorkCompletion[] wcs = WorkCompletion.array(4);
            qb.postRecv(wr.clear().wrId(100).sge(dst, 0, 64));
            qb.postRecv(wr.clear().wrId(101).sge(dst, 64, 64));
            // the first send attaches the peers (the agents do it)
            qa.postSend(wr.clear().wrId(1).opcode(Opcode.SEND).sge(src, 0, 64));
            assertThat(scq.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(rcq.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(wcs[0].wrId()).isEqualTo(100);

            MemorySegment ring = ((ShmQueuePair) qa).file.segment;
            ProgressRight bRight = b.progressRight();
            bRight.acquire(); // B executes nothing until released
            try {
                src.segment().asSlice(0, 64).fill((byte) 0x77);
                qa.postSend(wr.clear().wrId(2).opcode(Opcode.SEND).sge(src, 0, 64));
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (Layout.getAcquire(ring, Layout.QP_TAIL) < 2 && System.nanoTime() < until) {
                    Thread.sleep(1);
                }
                assertThat(Layout.getAcquire(ring, Layout.QP_TAIL)).as("the second send published").isEqualTo(2);
                ((ShmQueuePair) qa).file.entry(1).set(ValueLayout.JAVA_LONG, Layout.E_LENGTH, -64L);
            } finally {
                bRight.release();
            }
            assertThat(scq.await(wcs, 10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(wcs[0].wrId()).isEqualTo(2);
            assertThat(wcs[0].status()).isEqualTo(WcStatus.REM_INV_REQ_ERR);
            int n = rcq.await(wcs, 200, TimeUnit.MILLISECONDS);
            for (int i = 0; i < n; i++) {
                assertThat(wcs[i].status()).as("receive %d", wcs[i].wrId()).isNotEqualTo(WcStatus.SUCCESS);
            }
            assertThat(dst.segment().get(ValueLayout.JAVA_BYTE, 64)).as("nothing copied").isZero();
        }
    }
}
