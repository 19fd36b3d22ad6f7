package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.wire.inproc.FaultConfig;
import io.slime4j.wire.inproc.InprocWire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ordering rule of docs/ENDPOINT.md, end to end on 4 queue pairs over 2 rails whose wires drop
 * 5% of their packets: a notification (a send, an empty write-with-imm, a write-with-imm carrying a
 * small write of its own) posted after N writes that were not waited for reaches the peer only when
 * every byte of those writes is in place, and {@code flush()} completes only then. Each round writes
 * a fresh pattern over the same area, so a byte of an earlier round counts as missing. The bytes are
 * checked the moment the notification is seen, before anything else is awaited.
 */
@Timeout(180)
class OrderingTest {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int WRITES = 24;
    private static final long PIECE = 256 << 10;
    private static final long DATA = WRITES * PIECE;
    /** Past the data: the message buffers and the write-with-imm's own bytes. */
    private static final long NOTE = DATA;
    private static final int ROUNDS = 5;

    private static RailPair lossyPair() {
        EndpointConfig c = EndpointConfig.builder().qps(4).selector("round-robin").maxRequestBytes(32 << 10)
                .stripeMinBytes(16 << 10).ioSlots(64).requestsPerSlot(8).build();
        RailPair p = RailPair.inproc(2, c, DATA + (1 << 20));
        long seed = 41;
        for (InprocWire w : p.inprocWires) {
            w.setFaults(FaultConfig.builder().seed(seed++).dropRate(0.05).build());
        }
        return p;
    }

    /** Fills the data area with round {@code round}'s pattern and writes it in pieces, not waiting. */
    private static List<TransferFuture> writeAll(RailPair p, int round) {
        List<TransferFuture> writes = new ArrayList<>();
        for (int i = 0; i < WRITES; i++) {
            Patterns.fill(p.kvA, i * PIECE, PIECE, seed(round, i));
        }
        for (int i = 0; i < WRITES; i++) {
            writes.add(p.a.write(Assignment.local("kv", i * PIECE).remote("kv", i * PIECE).length(PIECE)));
        }
        return writes;
    }

    private static long seed(int round, int piece) {
        return round * 1000L + piece;
    }

    /** The first piece of the receiver's data area that does not hold round {@code round}'s bytes, or -1. */
    private static int firstMissingPiece(RailPair p, int round) {
        for (int i = 0; i < WRITES; i++) {
            if (Patterns.mismatch(p.kvB, i * PIECE, PIECE, seed(round, i)) >= 0) {
                return i;
            }
        }
        return -1;
    }

    private static void allSucceed(List<TransferFuture> writes) throws InterruptedException {
        for (TransferFuture w : writes) {
            success(w, WAIT);
        }
    }

    @Test
    void aSendPostedAfterWritesArrivesOnlyWhenEveryByteOfThemHasLanded() throws Exception {
        try (RailPair p = lossyPair()) {
            for (int round = 1; round <= ROUNDS; round++) {
                TransferFuture recv = p.b.recv("kv", NOTE, 8);
                p.kvA.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, NOTE, round);
                List<TransferFuture> writes = writeAll(p, round);
                TransferFuture send = p.a.send("kv", NOTE, 8);
                success(recv, WAIT);
                assertThat(firstMissingPiece(p, round)).as("first piece missing when 'done' arrived, round %d", round)
                        .isEqualTo(-1);
                assertThat(p.kvB.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, NOTE)).isEqualTo(round);
                allSucceed(writes);
                success(send, WAIT);
            }
            p.assertClean();
        }
    }

    @Test
    void anEmptyWriteWithImmPostedAfterWritesArrivesOnlyWhenEveryByteOfThemHasLanded() throws Exception {
        try (RailPair p = lossyPair()) {
            for (int round = 1; round <= ROUNDS; round++) {
                TransferFuture got = p.b.immRecv();
                List<TransferFuture> writes = writeAll(p, round);
                TransferFuture note = p.a.writeWithImm(List.of(), 7000 + round);
                assertThat(success(got, WAIT).immediate()).isEqualTo(7000 + round);
                assertThat(firstMissingPiece(p, round)).as("first piece missing when the immediate arrived, round %d",
                        round).isEqualTo(-1);
                allSucceed(writes);
                success(note, WAIT);
            }
            p.assertClean();
        }
    }

    @Test
    void aWriteWithImmOnOneQueuePairStillWaitsForWritesOnTheOthers() throws Exception {
        try (RailPair p = lossyPair()) {
            for (int round = 1; round <= ROUNDS; round++) {
                TransferFuture got = p.b.immRecv();
                List<TransferFuture> writes = writeAll(p, round);
                Patterns.fill(p.kvA, NOTE, 4096, seed(round, 99));
                TransferFuture note = p.a.writeWithImm( // 4 KiB: below stripeMinBytes, one queue pair
                        List.of(Assignment.local("kv", NOTE).remote("kv", NOTE).length(4096)), 8000 + round);
                assertThat(success(got, WAIT).immediate()).isEqualTo(8000 + round);
                assertThat(firstMissingPiece(p, round)).as("first piece missing when the immediate arrived, round %d",
                        round).isEqualTo(-1);
                assertThat(Patterns.mismatch(p.kvB, NOTE, 4096, seed(round, 99))).isEqualTo(-1);
                allSucceed(writes);
                success(note, WAIT);
            }
            p.assertClean();
        }
    }

    @Test
    void flushCompletesOnlyWhenEveryByteOfTheEarlierWritesHasLanded() throws Exception {
        try (RailPair p = lossyPair()) {
            for (int round = 1; round <= ROUNDS; round++) {
                List<TransferFuture> writes = writeAll(p, round);
                TransferFuture flush = p.a.flush();
                assertThat(success(flush, WAIT).kind()).isEqualTo(OpKind.FLUSH);
                assertThat(firstMissingPiece(p, round)).as("first piece missing when flush completed, round %d",
                        round).isEqualTo(-1);
                for (TransferFuture w : writes) {
                    assertThat(w.isDone()).as("a write posted before flush is done when flush completes").isTrue();
                }
            }
            p.assertClean();
        }
    }

    @Test
    void aWriteThatFailsFailsTheFlushAfterItButNotTheNotificationsWhichGoOnceItSettled() throws Exception {
        EndpointConfig c = EndpointConfig.builder().qps(4).selector("round-robin").build();
        FaultConfig slow = FaultConfig.builder().delay(Duration.ofMillis(30)).build(); // the write is surely in flight
        try (EndpointPair p = EndpointPair.open(c, slow, 1 << 20);
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            p.b.register("tmp", arena.allocate(4096, 4096));
            p.a.updatePeer(p.b.info());
            p.b.deregister("tmp"); // the peer's key for it is now invalid
            p.kvA.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 64, 42);
            TransferFuture recv = p.b.recv("kv", 0, 8);
            TransferFuture got = p.b.immRecv();
            TransferFuture bad = p.a.write(Assignment.local("kv", 0).remote("tmp", 0).length(4096));
            TransferFuture send = p.a.send("kv", 64, 8);
            TransferFuture note = p.a.writeWithImm(List.of(), 5);
            TransferFuture flush = p.a.flush();
            assertThat(flush.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(flush.wcStatus()).isEqualTo(io.slime4j.verbs.WcStatus.REM_ABORT_ERR);
            assertThat(flush.failureMessage()).contains("WRITE op " + bad.id());
            assertThat(bad.status()).as("the write settled before the flush completed").isEqualTo(TransferStatus.FAILED);
            assertThat(success(got, WAIT).immediate()).isEqualTo(5);
            success(recv, WAIT);
            assertThat(p.kvB.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(42);
            success(send, WAIT);
            success(note, WAIT);
            success(p.a.flush(), WAIT); // the failure is not sticky: a later flush sees only later ops
        }
    }

    @Test
    void flushWithNothingInFlightCompletesAtOnce() throws Exception {
        try (RailPair p = RailPair.inproc(2, EndpointConfig.builder().qps(4).build(), 1 << 20)) {
            assertThat(success(p.a.flush(), Duration.ofSeconds(5)).status()).isEqualTo(TransferStatus.SUCCESS);
        }
    }
}
