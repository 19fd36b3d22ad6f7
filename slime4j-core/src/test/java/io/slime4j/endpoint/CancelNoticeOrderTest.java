package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.WcStatus;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cancel notice never overtakes the meta of the recv it cancels (issue 15, item 3). A recv is
 * cancelled — by {@link RdmaEndpoint#cancelAll()} on another thread, or by its own future — at any
 * moment, also after its slot was leased and before its meta was posted. The notice must still reach
 * the peer after the meta (on the one meta queue pair), or the peer finds no meta to mark, takes the
 * meta that comes next as live, and its send writes into the cancelled buffer with SUCCESS: a message
 * swallowed silently. The selector, which the endpoint asks for the meta's route just before posting
 * it, cancels at exactly that moment.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CancelNoticeOrderTest {

    @Test
    void aRecvCancelledBeforeItsMetaWasPostedIsStillReportedToTheSender_andThePairingHolds() throws Exception {
        AtomicReference<RdmaEndpoint> receiver = new AtomicReference<>();
        AtomicBoolean armed = new AtomicBoolean();
        AtomicBoolean fired = new AtomicBoolean();
        QpSelector cancelling = (type, id, qps) -> {
            RdmaEndpoint ep = receiver.get();
            if (type == QpOpType.CONTROL && ep != null && armed.getAndSet(false)) {
                fired.set(ep.cancelAll() == 1); // the recv is leased and its meta written, not yet posted
            }
            return 0;
        };
        EndpointConfig config = EndpointConfig.builder().selector((q, c) -> cancelling)
                .eagerThreshold(0).build(); // cancel notices follow metas: rendezvous recvs
        try (EndpointPair p = EndpointPair.open(config, 1 << 16)) {
            receiver.set(p.b);
            armed.set(true);
            TransferFuture cancelled = p.b.recv("kv", 0, 128);
            assertThat(fired).as("cancelAll ran inside the recv, before its meta was posted").isTrue();
            assertThat(cancelled.status()).isEqualTo(TransferStatus.CANCELLED);
            Checks.eventually(() -> p.a.stats().cancelNoticesReceived.sum() == 1, Duration.ofSeconds(5),
                    "the sender reading the cancel notice");

            TransferFuture next = p.b.recv("kv", 1024, 128);
            Patterns.fill(p.kvA, 4096, 100, 7);
            TransferFuture first = p.a.send("kv", 4096, 100);
            assertThat(first.await(Duration.ofSeconds(10))).as("the send matched with the cancelled recv")
                    .isEqualTo(TransferStatus.FAILED);
            assertThat(first.wcStatus()).isEqualTo(WcStatus.REM_ABORT_ERR);
            Patterns.fill(p.kvA, 8192, 60, 8);
            success(p.a.send("kv", 8192, 60));
            assertThat(success(next).byteCount()).as("the next recv gets the next message").isEqualTo(60);
            assertThat(Patterns.mismatch(p.kvB, 1024, 60, 8)).isEqualTo(-1);

            Checks.eventually(cancelled::isSettled, Duration.ofSeconds(5), "the cancelled recv settling");
            for (long i = 0; i < 128; i++) {
                assertThat(p.kvB.get(ValueLayout.JAVA_BYTE, i)).as("byte %d of the cancelled recv's buffer", i).isZero();
            }
            Checks.eventually(() -> p.b.recvPool().free() == p.b.recvPool().capacity(), Duration.ofSeconds(5),
                    "the recv slots coming back");
            p.assertClean();
        }
    }

    @Test
    void recvsRacingACancellingThreadAreEachReportedOnce_soEverySendPairedWithThemFails() throws Exception {
        int slots = 8;
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().messageSlots(slots).eagerThreshold(0).build(), 1 << 16)) {
            for (int round = 0; round < 20; round++) {
                AtomicBoolean posting = new AtomicBoolean(true);
                Thread canceller = Thread.ofPlatform().start(() -> {
                    while (posting.get()) {
                        p.b.cancelAll();
                        Thread.onSpinWait();
                    }
                });
                java.util.List<TransferFuture> recvs = new java.util.ArrayList<>();
                try {
                    for (int i = 0; i < slots; i++) {
                        recvs.add(p.b.recv("kv", i * 128L, 128));
                    }
                } finally {
                    posting.set(false);
                    canceller.join(10_000);
                }
                p.b.cancelAll();
                long notices = (round + 1L) * slots;
                Checks.eventually(() -> p.a.stats().cancelNoticesReceived.sum() == notices, Duration.ofSeconds(10),
                        "a reading one notice per cancelled recv");
                for (int i = 0; i < slots; i++) {
                    TransferFuture s = p.a.send("kv", 8192, 64);
                    assertThat(s.await(Duration.ofSeconds(10))).as("round %d, send %d", round, i)
                            .isEqualTo(TransferStatus.FAILED);
                    assertThat(s.wcStatus()).as("round %d, send %d", round, i).isEqualTo(WcStatus.REM_ABORT_ERR);
                }
                assertThat(recvs).allSatisfy(f -> assertThat(f.status()).isEqualTo(TransferStatus.CANCELLED));
                Checks.eventually(() -> p.b.recvPool().free() == slots, Duration.ofSeconds(10), "b's recv slots back");
            }
            for (long i = 0; i < slots * 128L; i++) {
                assertThat(p.kvB.get(ValueLayout.JAVA_BYTE, i)).as("byte %d of the cancelled buffers", i).isZero();
            }
            p.assertClean();
        }
    }
}
