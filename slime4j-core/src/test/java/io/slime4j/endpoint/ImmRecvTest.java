package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** immRecv matches arrivals and callers in order; credits keep a fast writer from outrunning the window. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ImmRecvTest {

    @Test
    void callersAndArrivalsAreMatchedInOrder() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 16)) {
            List<TransferFuture> early = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                early.add(p.b.immRecv()); // callers first
            }
            for (int i = 0; i < 10; i++) {
                success(p.a.writeWithImm(List.of(Assignment.local("kv", i).remote("kv", i).length(1)), 1000 + i));
            }
            for (int i = 0; i < 5; i++) {
                assertThat(success(early.get(i)).immediate()).isEqualTo(1000 + i);
            }
            Checks.eventually(() -> p.b.queuedImmediates() == 5, Duration.ofSeconds(5), "5 queued");
            for (int i = 5; i < 10; i++) {
                TransferFuture f = p.b.immRecv(); // arrivals first
                assertThat(f.isDone()).isTrue();
                assertThat(f.immediate()).isEqualTo(1000 + i);
                assertThat(f.byteCount()).isZero();
            }
            // every 32-bit value is the caller's
            TransferFuture f = p.b.immRecv();
            success(p.a.writeWithImm(List.of(), 0xFFFF_FFFF));
            assertThat(success(f).immediate()).isEqualTo(0xFFFF_FFFF);
            p.assertClean();
        }
    }

    @Test
    void aWriterFarAheadOfTheReaderIsPacedByCreditsAndNeverCausesRnr() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().immWindow(4).build();
        try (EndpointPair p = EndpointPair.open(cfg, 1 << 16)) {
            List<TransferFuture> writes = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                writes.add(p.a.writeWithImm(List.of(Assignment.local("kv", i % 1000).remote("kv", i % 1000).length(8)), i));
            }
            for (TransferFuture w : writes) {
                success(w);
            }
            for (int i = 0; i < 2000; i++) {
                assertThat(success(p.b.immRecv()).immediate()).isEqualTo(i); // one queue pair: issue order
            }
            assertThat(p.b.stats().creditMessages.sum()).isGreaterThanOrEqualTo(2000 / 4 - 1);
            assertThat(p.a.peerImmCredits()).isLessThanOrEqualTo(4);
            p.assertClean();
        }
    }

    @Test
    void aWriteWithImmOverSeveralQueuePairsDeliversTheImmediateAfterAllItsBytes() throws Exception {
        EndpointConfig cfg = EndpointConfig.builder().qps(8).maxRequestBytes(4096).build();
        int size = 4 << 20;
        try (EndpointPair p = EndpointPair.open(cfg, 2L * size)) {
            for (int round = 0; round < 5; round++) {
                Patterns.fill(p.kvA, 0, size, round);
                TransferFuture imm = p.b.immRecv();
                TransferFuture w = p.a.writeWithImm(List.of(Assignment.local("kv", 0).remote("kv", 0).length(size)), round);
                success(imm);
                // checked when the immediate arrived, before (or whenever) the writer's future completes
                assertThat(Patterns.mismatch(p.kvB, 0, size, round)).isEqualTo(-1);
                success(w);
            }
            p.assertClean();
        }
    }
}
