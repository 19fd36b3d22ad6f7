package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.WcStatus;
import io.slime4j.wire.inproc.FaultConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RdmaEndpoint#cancelAll()} targets the live ops of the in-flight registry, not the slot
 * pools: completed ops keep their result, slots come back only when their requests complete, and
 * the endpoint (and the send/recv pairing) keeps working.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CancelAllTest {

    @Test
    void cancelAllCompletesOnlyLiveOpsAndLeavesSlotsToTheirCompletions() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().eagerThreshold(0).build() /* rendezvous: eager sends complete without their recv (EagerMessagesTest) */, 1 << 20)) {
            List<TransferFuture> done = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                done.add(success(p.b.write(Assignment.local("kv", i * 64L).remote("kv", i * 64L).length(64))));
            }
            List<TransferFuture> recvs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                recvs.add(p.b.recv("kv", 4096 + i * 128L, 128));
            }
            TransferFuture imm1 = p.b.immRecv();
            TransferFuture imm2 = p.b.immRecv();
            TransferFuture otherSide = p.a.recv("kv", 0, 16); // on the other endpoint: untouched

            assertThat(p.b.cancelAll()).isEqualTo(5);

            for (TransferFuture f : done) {
                assertThat(f.status()).isEqualTo(TransferStatus.SUCCESS);
            }
            for (TransferFuture f : List.of(recvs.get(0), recvs.get(1), recvs.get(2), imm1, imm2)) {
                assertThat(f.status()).as("%s", f).isEqualTo(TransferStatus.CANCELLED);
                assertThat(f.wcStatus()).isEqualTo(WcStatus.WR_FLUSH_ERR);
            }
            assertThat(otherSide.isDone()).isFalse();
            assertThat(p.b.inFlight()).isZero();
            // the receives' slots still wait for the peer's data: cancelAll did not touch the pool
            assertThat(p.b.recvPool().free()).isEqualTo(p.b.recvPool().capacity() - 3);
            assertThat(recvs.get(0).isSettled()).isFalse();
            // b told a about its cancelled receives (issue 15): once a has read the notices, the sends
            // that pair with them fail and write nothing
            Checks.eventually(() -> p.a.stats().cancelNoticesReceived.sum() == 3, Duration.ofSeconds(5),
                    "a reading b's three cancel notices");
            for (int i = 0; i < 3; i++) {
                TransferFuture s = p.a.send("kv", 8192, 100); // pairs with the cancelled receives, in order
                assertThat(s.await(Duration.ofSeconds(10))).as("a send matched with a cancelled recv")
                        .isEqualTo(TransferStatus.FAILED);
                assertThat(s.wcStatus()).isEqualTo(WcStatus.REM_ABORT_ERR);
                assertThat(s.failureMessage()).contains("cancelled the recv");
            }
            Checks.eventually(() -> p.b.recvPool().free() == p.b.recvPool().capacity(), Duration.ofSeconds(5),
                    "b's recv slots coming back");
            assertThat(recvs).allSatisfy(f -> {
                assertThat(f.isSettled()).isTrue();
                assertThat(f.status()).isEqualTo(TransferStatus.CANCELLED); // never overwritten
            });
            // still usable, pairing intact
            Patterns.fill(p.kvA, 9000, 50, 5);
            TransferFuture r = p.b.recv("kv", 20000, 64);
            success(p.a.send("kv", 9000, 50));
            assertThat(success(r).byteCount()).isEqualTo(50);
            assertThat(Patterns.mismatch(p.kvB, 20000, 50, 5)).isEqualTo(-1);
            success(p.b.send("kv", 0, 16));
            success(otherSide);
            p.assertClean();
        }
    }

    @Test
    void aCancelledSendTellsItsMatchingRecvAndThePairingHolds() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().eagerThreshold(0).build() /* rendezvous: eager sends complete without their recv (EagerMessagesTest) */, 1 << 16)) {
            TransferFuture send = p.a.send("kv", 0, 100);
            assertThat(p.a.cancelAll()).isEqualTo(1);
            assertThat(send.status()).isEqualTo(TransferStatus.CANCELLED);
            TransferFuture recv = p.b.recv("kv", 0, 100);
            assertThat(recv.await(Duration.ofSeconds(10))).isEqualTo(TransferStatus.FAILED);
            assertThat(recv.wcStatus()).isEqualTo(WcStatus.REM_ABORT_ERR);
            assertThat(recv.failureMessage()).contains("cancelled");
            Checks.eventually(send::isSettled, Duration.ofSeconds(5), "the cancelled send settling");
            TransferFuture next = p.b.recv("kv", 1000, 100);
            success(p.a.send("kv", 0, 77));
            assertThat(success(next).byteCount()).isEqualTo(77);
            p.assertClean();
        }
    }

    @Test
    void cancellingALargeWriteCompletesItAtOnceAndItSettlesWhenItsRequestsDo() throws Exception {
        long size = 32L << 20;
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().qps(4).build(), size)) {
            p.wire.setFaults(FaultConfig.builder().dropRate(1.0).build()); // hold the write on the wire
            TransferFuture big = p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(size));
            assertThat(p.a.cancelAll()).isEqualTo(1);
            assertThat(big.status()).isEqualTo(TransferStatus.CANCELLED);
            assertThat(big.isSettled()).isFalse();
            p.wire.setFaults(FaultConfig.NONE);
            Checks.eventually(big::isSettled, Duration.ofSeconds(20), "the cancelled write settling");
            p.awaitIdle(Duration.ofSeconds(5));
            assertThat(big.status()).isEqualTo(TransferStatus.CANCELLED);
            Patterns.fill(p.kvA, 0, 4096, 3);
            success(p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(4096)));
            assertThat(Patterns.mismatch(p.kvB, 0, 4096, 3)).isEqualTo(-1);
            p.assertClean();
        }
    }

    @Test
    void cancelAllDrainsQueuedImmediates() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 16)) {
            for (int i = 0; i < 3; i++) {
                success(p.a.writeWithImm(List.of(), i));
            }
            Checks.eventually(() -> p.b.queuedImmediates() == 3, Duration.ofSeconds(5), "3 queued immediates");
            assertThat(p.b.cancelAll()).isZero();
            assertThat(p.b.queuedImmediates()).isZero();
            TransferFuture next = p.b.immRecv();
            success(p.a.writeWithImm(List.of(), 99));
            assertThat(success(next).immediate()).isEqualTo(99);
            p.assertClean();
        }
    }
}
