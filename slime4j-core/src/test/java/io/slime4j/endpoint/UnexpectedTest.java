package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.internal.Allocations;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class UnexpectedTest {
    private final Unexpected table = new Unexpected(1 << 16); // the racing test may hold up to 20 000

    private static Slot slot(int i) {
        return new Slot(i, 1, 0);
    }

    private static MemorySegment bytes(int n, int value) {
        MemorySegment s = Arena.ofAuto().allocate(n);
        s.fill((byte) value);
        return s;
    }

    @Test
    void forgettingARecvThatNoLongerWaitsAllocatesNothing() {
        // every eager recv's completion forgets its slot after its arrival took it: with nothing in the
        // overflow map, its sequence number (beyond Integer's cache here) must not be boxed for a lookup
        int n = 4_096;
        Slot[] done = new Slot[n];
        for (int i = 0; i < n; i++) {
            Slot s = slot(i);
            table.post(s, null);
            assertThat(table.arrive(s.msgSeq, Wire32.EAGER_DATA, null, 0)).isSameAs(s);
            done[i] = s;
        }
        long least = Long.MAX_VALUE;
        for (int round = 0; round < 3; round++) {
            long before = Allocations.ofThisThread();
            for (Slot s : done) {
                table.forget(s);
            }
            least = Math.min(least, Allocations.ofThisThread() - before);
        }
        assertThat(least).as("bytes allocated by %d forgets", n).isLessThan(n);
        assertThat(table.pending()).isZero();
    }

    @Test
    void recvsAreNumberedInCallOrder_andAnArrivalFindsItsPendingRecv() {
        Slot r0 = slot(0);
        Slot r1 = slot(1);
        assertThat(table.post(r0, null)).isNull();
        assertThat(table.post(r1, null)).isNull();
        assertThat(r0.msgSeq).isZero();
        assertThat(r1.msgSeq).isEqualTo(1);
        assertThat(table.arrive(1, Wire32.EAGER_DATA, bytes(4, 1))).isSameAs(r1);
        assertThat(table.arrive(0, Wire32.EAGER_DATA, bytes(4, 1))).isSameAs(r0);
        assertThat(table.pending()).isZero();
    }

    @Test
    void numbersFartherApartThanTheRingsStillMeet_throughTheOverflow() {
        Unexpected small = new Unexpected(16, 2); // rings of 32: numbers 32 apart share a place
        assertThat(small.arrive(0, Wire32.EAGER_DATA, bytes(4, 1))).isNull();
        assertThat(small.arrive(32, Wire32.EAGER_DATA, bytes(4, 2))).as("the same place as 0: overflow").isNull();
        assertThat(small.held()).isEqualTo(2);
        assertThat(small.post(slot(0), null).data()).containsOnly((byte) 1);
        Slot[] recvs = new Slot[40];
        for (int k = 1; k < 40; k++) {
            recvs[k] = slot(k);
            Unexpected.Held h = small.post(recvs[k], null);
            if (k == 32) {
                assertThat(h.data()).as("held in the overflow").containsOnly((byte) 2);
            } else {
                assertThat(h).isNull();
            }
        }
        assertThat(small.held()).isZero();
        assertThat(small.pending()).as("1..39 but 32, several sharing places with others").isEqualTo(38);
        for (int k = 1; k < 40; k++) {
            if (k != 32) {
                assertThat(small.arrive(k, Wire32.EAGER_DATA, bytes(4, 3))).isSameAs(recvs[k]);
            }
        }
        assertThat(small.pending()).isZero();
    }

    @Test
    void aForgottenRecvLeavesItsPlace_whetherInTheRingOrTheOverflow() {
        Unexpected small = new Unexpected(2, 2); // rings of 4
        Slot[] recvs = new Slot[6];
        for (int k = 0; k < 6; k++) {
            recvs[k] = slot(k);
            small.post(recvs[k], null);
        }
        small.forget(recvs[1]); // in the ring
        small.forget(recvs[5]); // 5 shares 1's place, posted while 1 was there: in the overflow
        assertThat(small.pending()).isEqualTo(4);
        assertThatThrownBy(() -> small.arrive(1, Wire32.EAGER_DATA, bytes(4, 1))).as("forgotten: no longer waiting")
                .isInstanceOf(IllegalStateException.class);
        assertThat(small.arrive(5 + 0, Wire32.EAGER_NOTICE, null)).as("a notice for it: stale").isSameAs(Unexpected.STALE);
        assertThat(small.arrive(2, Wire32.EAGER_DATA, bytes(4, 1))).isSameAs(recvs[2]);
    }

    @Test
    void aMessageBeforeItsRecvIsHeldCopied_andTheRecvTakesIt() {
        MemorySegment bounce = bytes(8, 7);
        assertThat(table.arrive(0, Wire32.EAGER_DATA, bounce)).isNull();
        bounce.fill((byte) 0); // the bounce buffer is re-posted: the held copy must not change
        assertThat(table.held()).isEqualTo(1);
        Unexpected.Held h = table.post(slot(0), null);
        assertThat(h.kind()).isEqualTo(Wire32.EAGER_DATA);
        assertThat(h.data()).containsOnly((byte) 7).hasSize(8);
        assertThat(table.held()).isZero();
        assertThat(table.pending()).as("answered: not pending").isZero();
    }

    @Test
    void aNoticeLeavesItsRecvPending_aHeldNoticeToo() {
        Slot r0 = slot(0);
        table.post(r0, null);
        assertThat(table.arrive(0, Wire32.EAGER_NOTICE, null)).isSameAs(r0);
        assertThat(table.pending()).isEqualTo(1);
        assertThat(table.arrive(1, Wire32.EAGER_NOTICE, null)).isNull();
        Slot r1 = slot(1);
        assertThat(table.post(r1, null).kind()).isEqualTo(Wire32.EAGER_NOTICE);
        assertThat(table.pending()).isEqualTo(2);
        table.forget(r0);
        table.forget(r1);
        assertThat(table.pending()).isZero();
    }

    @Test
    void aNoticeForARecvAlreadyAnsweredIsStale_aDataMessageForOneIsAProtocolError() {
        Slot r0 = slot(0);
        table.post(r0, null);
        table.forget(r0); // its rendezvous data came
        assertThat(table.arrive(0, Wire32.EAGER_NOTICE, null)).isSameAs(Unexpected.STALE);
        assertThatThrownBy(() -> table.arrive(0, Wire32.EAGER_DATA, bytes(1, 1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no longer waiting");
        table.arrive(5, Wire32.EAGER_DATA, bytes(1, 1));
        assertThatThrownBy(() -> table.arrive(5, Wire32.EAGER_DATA, bytes(1, 1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("second");
    }

    @Test
    void theRecvsNumberIsWrittenIntoItsMetaBeforeItIsPending() {
        MemorySegment meta = Arena.ofAuto().allocate(Wire32.META_BYTES);
        Wire32.writeMeta(meta, new Wire32.Meta(3, 4, 5, 6, 0));
        table.post(slot(0), null);
        table.post(slot(1), meta);
        assertThat(Wire32.readMeta(meta).seq()).isEqualTo(1);
        assertThat(Wire32.readMeta(meta).length()).isEqualTo(6);
    }

    @Test
    void numbersWrapModulo2To28() {
        for (int i = 0; i < 3; i++) {
            table.post(slot(0), null);
            table.forget(slot(0));
        }
        Slot last = slot(1);
        table.post(last, null);
        assertThat(last.msgSeq).isEqualTo(3);
        assertThat(Wire32.eagerSeq(Wire32.eagerImm(Wire32.EAGER_DATA, (1 << 28) + 3))).isEqualTo(3);
    }

    @Test
    void moreArrivalsHeldThanTheEagerWindowIsAProtocolError_theExtraOneIsNotHeld() {
        Unexpected small = new Unexpected(2);
        assertThat(small.arrive(0, Wire32.EAGER_DATA, bytes(4, 1))).isNull();
        assertThat(small.arrive(1, Wire32.EAGER_NOTICE, null)).isNull();
        assertThatThrownBy(() -> small.arrive(2, Wire32.EAGER_DATA, bytes(4, 1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("eager window");
        assertThat(small.held()).isEqualTo(2);
        assertThat(small.post(slot(0), null).kind()).isEqualTo(Wire32.EAGER_DATA);
        assertThat(small.arrive(2, Wire32.EAGER_DATA, bytes(4, 1))).as("room again").isNull();
    }

    @Test
    void clearDropsHeldMessagesAndSaysHowMany() {
        table.arrive(0, Wire32.EAGER_DATA, bytes(2, 1));
        table.arrive(1, Wire32.EAGER_CANCELLED, null);
        assertThat(table.clear()).isEqualTo(2);
        assertThat(table.held()).isZero();
    }

    @Test
    void arrivalsAndRecvsRacingAlwaysMeet() throws Exception {
        int n = 20_000;
        Slot[] slots = new Slot[n];
        AtomicInteger matched = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        Thread recvs = Thread.ofPlatform().start(() -> {
            await(start);
            for (int i = 0; i < n; i++) {
                slots[i] = slot(i % 64);
                if (table.post(slots[i], null) != null) {
                    matched.incrementAndGet();
                }
            }
        });
        Thread arrivals = Thread.ofPlatform().start(() -> {
            await(start);
            for (int i = 0; i < n; i++) {
                if (table.arrive(i, Wire32.EAGER_DATA, null) != null) {
                    matched.incrementAndGet();
                }
            }
        });
        start.countDown();
        recvs.join();
        arrivals.join();
        assertThat(matched.get()).isEqualTo(n);
        assertThat(table.held()).isZero();
        assertThat(table.pending()).isZero();
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
