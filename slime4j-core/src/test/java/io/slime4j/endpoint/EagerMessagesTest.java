package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.WcStatus;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Eager messages (issue 19, item 4), end to end between two endpoints: eager and rendezvous sends
 * interleaved around the threshold, recvs posted before and after their sends, byte-exact and in
 * pair order on the in-process wire, the UDP wire and shm devices; a send longer than a small recv;
 * RNR freedom and back-pressure with no recv posted; cancellation, cancelAll and failure with held
 * messages.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EagerMessagesTest {
    private static final int THRESHOLD = 2048;
    private static final long STRIDE = 8192;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static EndpointConfig config() {
        return EndpointConfig.builder().eagerThreshold(THRESHOLD).build();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"inproc", "udp", "shm"})
    void eagerAndRendezvousSendsAroundTheThresholdArriveByteExactInPairOrder(String wire) throws Exception {
        switch (wire) {
            case "inproc" -> {
                try (EndpointPair p = EndpointPair.open(config(), 4 << 20)) {
                    interleave(p.a, p.kvA, p.b, p.kvB, 11);
                    interleave(p.b, p.kvB, p.a, p.kvA, 12);
                    p.assertClean();
                }
            }
            case "udp" -> {
                try (RailPair p = RailPair.udp(1, config(), 4 << 20)) {
                    interleave(p.a, p.kvA, p.b, p.kvB, 21);
                    interleave(p.b, p.kvB, p.a, p.kvA, 22);
                    p.assertClean();
                    long rnr = 0;
                    for (SoftDevice d : List.of(p.devicesA.getFirst(), p.devicesB.getFirst())) {
                        rnr += d.counters().get(Counter.RNR_NAKS_SENT) + d.counters().get(Counter.RNR_NAKS_RECEIVED);
                    }
                    assertThat(rnr).as("RNR NAKs").isZero();
                }
            }
            default -> EndpointPair.onShm(() -> {
                try (EndpointPair p = EndpointPair.open(config(), 4 << 20)) {
                    interleave(p.a, p.kvA, p.b, p.kvB, 31);
                    p.assertClean();
                }
            });
        }
    }

    /**
     * Rounds of up to 24 messages from {@code s} to {@code r}: sizes around the threshold, recv
     * buffers as long as the message or longer (some above the threshold for eager messages), some
     * recvs posted before the sends and the rest after.
     */
    private static void interleave(RdmaEndpoint s, MemorySegment kvS, RdmaEndpoint r, MemorySegment kvR, long seed)
            throws InterruptedException {
        Random rnd = new Random(seed);
        long eagerBefore = s.stats().eagerSent.sum();
        long heldBefore = r.stats().eagerHeld.sum();
        for (int round = 0; round < 12; round++) {
            int n = 1 + rnd.nextInt(24);
            int[] len = new int[n];
            long[] room = new long[n];
            for (int i = 0; i < n; i++) {
                len[i] = switch (rnd.nextInt(4)) {
                    case 0 -> THRESHOLD - rnd.nextInt(3);
                    case 1 -> THRESHOLD + 1 + rnd.nextInt(3);
                    case 2 -> rnd.nextInt(64);
                    default -> 1 + rnd.nextInt(2 * THRESHOLD + 1000);
                };
                room[i] = rnd.nextBoolean() ? len[i] : len[i] + rnd.nextInt(3000);
                Patterns.fill(kvS, i * STRIDE, len[i], seed * 1000 + round * 31 + i);
            }
            int before = round % 3 == 0 ? 0 : rnd.nextInt(n + 1);
            if (round % 3 == 0) {
                len[0] = 1 + rnd.nextInt(THRESHOLD); // eager, sent before its recv: held
                room[0] = len[0];
                Patterns.fill(kvS, 0, len[0], seed * 1000 + round * 31);
            }
            List<TransferFuture> recvs = new ArrayList<>();
            for (int i = 0; i < before; i++) {
                recvs.add(r.recv("kv", i * STRIDE, room[i]));
            }
            List<TransferFuture> sends = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sends.add(s.send("kv", i * STRIDE, len[i]));
                if (i == n / 2 && round % 3 != 0 && rnd.nextBoolean()) {
                    for (int j = recvs.size(); j < n; j++) {
                        recvs.add(r.recv("kv", j * STRIDE, room[j]));
                    }
                }
            }
            if (round % 3 == 0) { // eager sends complete without their recvs (theirs are held at r) up to the
                for (int i = recvs.size(); i < n && len[i] <= THRESHOLD; i++) { // first rendezvous one, which waits
                    success(sends.get(i), WAIT);
                }
                long held = r.stats().eagerHeld.sum();
                Checks.eventually(() -> r.stats().eagerHeld.sum() > held || held > heldBefore, WAIT,
                        "message 0 held at the receiver");
            }
            for (int j = recvs.size(); j < n; j++) {
                recvs.add(r.recv("kv", j * STRIDE, room[j]));
            }
            for (int i = 0; i < n; i++) {
                success(sends.get(i), WAIT);
                assertThat(success(recvs.get(i), WAIT).byteCount()).as("message %d of round %d", i, round)
                        .isEqualTo(len[i]);
                assertThat(Patterns.mismatch(kvR, i * STRIDE, len[i], seed * 1000 + round * 31 + i))
                        .as("bytes of message %d (%d bytes into %d) of round %d", i, len[i], room[i], round)
                        .isEqualTo(-1);
            }
        }
        assertThat(s.stats().eagerSent.sum()).as("eager messages sent").isGreaterThan(eagerBefore);
        assertThat(r.stats().eagerHeld.sum()).as("eager messages that came before their recv")
                .isGreaterThan(heldBefore);
    }

    @ParameterizedTest(name = "recv first: {0}")
    @ValueSource(booleans = {true, false})
    void aRendezvousSendLongerThanASmallRecvFailsBothWithLocLenErr_andTheNextPairMatches(boolean recvFirst)
            throws Exception {
        try (EndpointPair p = EndpointPair.open(config(), 1 << 20)) {
            TransferFuture small = null;
            if (recvFirst) {
                small = p.b.recv("kv", 0, 100); // small: sends no meta
            }
            TransferFuture tooLong = p.a.send("kv", 0, THRESHOLD + 500); // rendezvous: its notice asks for the meta
            if (!recvFirst) {
                Checks.eventually(() -> p.b.stats().eagerHeld.sum() == 1, WAIT, "the notice held at b");
                small = p.b.recv("kv", 0, 100);
            }
            assertThat(tooLong.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(tooLong.wcStatus()).isEqualTo(WcStatus.LOC_LEN_ERR);
            assertThat(small.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(small.wcStatus()).isEqualTo(WcStatus.LOC_LEN_ERR);
            assertThat(Patterns.mismatch(p.kvB, 0, 100, 0)).as("nothing written").isNotEqualTo(-1);
            assertNextPairMatches(p, 64);
            assertNextPairMatches(p, THRESHOLD * 3);
            assertThat(p.a.stats().noticesSent.sum()).isPositive();
            p.assertClean();
        }
    }

    @Test
    void anEagerSendLongerThanItsRecvFailsTheRecvWithLocLenErr_theSendCompletedWhenItsDataArrived() throws Exception {
        try (EndpointPair p = EndpointPair.open(config(), 1 << 20)) {
            TransferFuture small = p.b.recv("kv", 0, 100);
            TransferFuture send = p.a.send("kv", 0, 200);
            success(send, WAIT);
            assertThat(small.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(small.wcStatus()).isEqualTo(WcStatus.LOC_LEN_ERR);
            assertThat(small.failureMessage()).contains("longer than this recv");
            assertNextPairMatches(p, 100);
            p.assertClean();
        }
    }

    private static void assertNextPairMatches(EndpointPair p, int n) throws InterruptedException {
        long seed = n * 7L;
        Patterns.fill(p.kvA, 65536, n, seed);
        TransferFuture r = p.b.recv("kv", 131072, n);
        success(p.a.send("kv", 65536, n), WAIT);
        assertThat(success(r, WAIT).byteCount()).isEqualTo(n);
        assertThat(Patterns.mismatch(p.kvB, 131072, n, seed)).isEqualTo(-1);
    }

    @Test
    void aSenderFloodingEagerSendsAtAPeerWithNoRecvsIsBackPressured_noRnr_andAllCompleteOnceRecvsArePosted()
            throws Exception {
        try (EndpointPair p = EndpointPair.open(config(), 4 << 20)) {
            int window = EndpointConfig.eagerWindow(config().messageSlots());
            int total = 4 * window;
            AtomicInteger returned = new AtomicInteger();
            AtomicReference<Throwable> error = new AtomicReference<>();
            List<TransferFuture> sends = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < total; i++) {
                Patterns.fill(p.kvA, i * 256L, 200, 500 + i);
            }
            Thread sender = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < total; i++) {
                        sends.add(p.a.send("kv", i * 256L, 200));
                        returned.incrementAndGet();
                    }
                } catch (Throwable t) {
                    error.set(t);
                }
            });
            Checks.eventually(() -> returned.get() >= window, WAIT, "the first window of sends");
            Thread.sleep(300);
            assertThat(returned.get()).as("sends beyond the peer's eager window wait for credits").isEqualTo(window);
            assertThat(p.b.stats().eagerHeld.sum()).isEqualTo(window);
            List<TransferFuture> recvs = new ArrayList<>();
            for (int i = 0; i < total; i++) {
                recvs.add(p.b.recv("kv", (1 << 20) + i * 256L, 256));
            }
            sender.join(WAIT.toMillis());
            assertThat(error.get()).isNull();
            for (int i = 0; i < total; i++) {
                success(sends.get(i), WAIT);
                assertThat(success(recvs.get(i), WAIT).byteCount()).isEqualTo(200);
                assertThat(Patterns.mismatch(p.kvB, (1 << 20) + i * 256L, 200, 500 + i)).isEqualTo(-1);
            }
            assertThat(p.rnrNaks()).as("RNR NAKs").isZero();
            p.assertClean();
        }
    }

    @Test
    void aSendWithNoCreditForLongerThanSlotTimeoutThrowsEndpointBusy() throws Exception {
        EndpointConfig c = config().toBuilder().slotTimeout(Duration.ofMillis(300)).build();
        try (EndpointPair p = EndpointPair.open(c, 1 << 20)) {
            int window = EndpointConfig.eagerWindow(c.messageSlots());
            for (int i = 0; i < window; i++) {
                success(p.a.send("kv", 0, 16), WAIT); // eager: complete without a recv
            }
            assertThatThrownBy(() -> p.a.send("kv", 0, 16)).isInstanceOf(EndpointBusyException.class)
                    .hasMessageContaining("eager credit");
            for (int i = 0; i < window; i++) {
                success(p.b.recv("kv", 0, 16), WAIT);
            }
            assertNextPairMatches(p, 16); // the refused send took no position
            p.assertClean();
        }
    }

    @Test
    void aSmallRecvCancelledBeforeItsEagerMessageArrivedConsumesThatMessage_andThePairingHolds() throws Exception {
        try (EndpointPair p = EndpointPair.open(config(), 1 << 20)) {
            TransferFuture cancelled = p.b.recv("kv", 0, 64);
            assertThat(cancelled.cancel(false)).isTrue();
            p.kvB.asSlice(0, 64).fill((byte) 0x5A);
            Patterns.fill(p.kvA, 0, 64, 9);
            success(p.a.send("kv", 0, 64), WAIT); // completes: its data reached b
            Checks.eventually(cancelled::isSettled, WAIT, "the cancelled recv settling");
            assertThat(cancelled.status()).isEqualTo(TransferStatus.CANCELLED);
            assertThat(p.b.stats().eagerDropped.sum()).isEqualTo(1);
            for (long i = 0; i < 64; i++) {
                assertThat(p.kvB.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i)).as("cancelled buffer untouched")
                        .isEqualTo((byte) 0x5A);
            }
            assertNextPairMatches(p, 64);
            p.assertClean();
        }
    }

    @Test
    void aRecvPostedAfterItsEagerMessageArrivedTakesItAtOnce_cancellingItThenChangesNothing() throws Exception {
        try (EndpointPair p = EndpointPair.open(config(), 1 << 20)) {
            Patterns.fill(p.kvA, 0, 300, 4);
            success(p.a.send("kv", 0, 300), WAIT);
            Checks.eventually(() -> p.b.stats().eagerHeld.sum() == 1, WAIT, "the message held at b");
            TransferFuture r = p.b.recv("kv", 4096, 300);
            assertThat(r.isDone()).as("completed by the held message within the call").isTrue();
            assertThat(r.cancel(false)).isFalse();
            assertThat(success(r, WAIT).byteCount()).isEqualTo(300);
            assertThat(Patterns.mismatch(p.kvB, 4096, 300, 4)).isEqualTo(-1);
            assertNextPairMatches(p, 200);
            p.assertClean();
        }
    }

    @Test
    void aLargeRecvCancelledBeforeAnEagerSendFailsThatSendWithRemAbortErr_andThePairingHolds() throws Exception {
        try (EndpointPair p = EndpointPair.open(config(), 1 << 20)) {
            TransferFuture large = p.b.recv("kv", 0, THRESHOLD * 2); // sends its meta
            Checks.eventually(() -> p.a.stats().metasUnneeded.sum() == 0, WAIT, "nothing yet");
            assertThat(large.cancel(false)).isTrue();
            Checks.eventually(() -> p.a.stats().cancelNoticesReceived.sum() == 1, WAIT, "a reading the cancel notice");
            TransferFuture send = p.a.send("kv", 0, 100); // eager, paired with the cancelled recv
            assertThat(send.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(send.wcStatus()).isEqualTo(WcStatus.REM_ABORT_ERR);
            Checks.eventually(large::isSettled, WAIT, "the cancelled recv settling");
            assertNextPairMatches(p, 100);
            assertNextPairMatches(p, THRESHOLD * 2);
            p.assertClean();
        }
    }

    @Test
    void cancelAllLeavesHeldMessagesToTheirRecvs_soThePairingHolds() throws Exception {
        try (EndpointPair p = EndpointPair.open(config(), 1 << 20)) {
            for (int i = 0; i < 3; i++) {
                Patterns.fill(p.kvA, i * 1024L, 500, 70 + i);
                success(p.a.send("kv", i * 1024L, 500), WAIT);
            }
            Checks.eventually(() -> p.b.stats().eagerHeld.sum() == 3, WAIT, "three messages held at b");
            TransferFuture imm = p.b.immRecv();
            assertThat(p.b.cancelAll()).isEqualTo(1);
            assertThat(imm.status()).isEqualTo(TransferStatus.CANCELLED);
            for (int i = 0; i < 3; i++) {
                TransferFuture r = p.b.recv("kv", 8192 + i * 1024L, 500);
                assertThat(success(r, WAIT).byteCount()).isEqualTo(500);
                assertThat(Patterns.mismatch(p.kvB, 8192 + i * 1024L, 500, 70 + i)).isEqualTo(-1);
            }
            assertNextPairMatches(p, 300);
            p.assertClean();
        }
    }

    @Test
    void thePeerDyingWithHeldMessagesAndBlockedSendersEndsEveryFutureAndDropsTheHeldMessages() throws Exception {
        EndpointConfig c = config().toBuilder().keepalive(Duration.ofMillis(50))
                .keepaliveDeadline(Duration.ofMillis(300)).build();
        try (EndpointPair p = EndpointPair.open(c, 1 << 20)) {
            p.expectNoRnr = true;
            for (int i = 0; i < 3; i++) {
                success(p.a.send("kv", 0, 100), WAIT);
            }
            Checks.eventually(() -> p.b.stats().eagerHeld.sum() == 3, WAIT, "three messages held at b");
            int window = EndpointConfig.eagerWindow(c.messageSlots());
            List<TransferFuture> bSends = new ArrayList<>();
            for (int i = 0; i < window; i++) {
                bSends.add(p.b.send("kv", 0, 64)); // eager, held at a
            }
            AtomicReference<Throwable> blocked = new AtomicReference<>();
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    p.b.send("kv", 0, 64); // no credit: waits
                } catch (Throwable e) {
                    blocked.set(e);
                }
            });
            TransferFuture rendezvous = p.b.send("kv", 0, THRESHOLD * 2); // waits for a's meta (notice deferred)
            TransferFuture imm = p.b.immRecv();
            Thread.sleep(200);
            p.deviceA.close(); // a's device is gone: b hears nothing more
            assertThat(rendezvous.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(imm.await(WAIT)).isEqualTo(TransferStatus.FAILED);
            t.join(WAIT.toMillis());
            assertThat(t.isAlive()).isFalse();
            assertThat(blocked.get()).isInstanceOf(EndpointException.class);
            for (TransferFuture f : bSends) {
                assertThat(f.await(WAIT)).isNotEqualTo(TransferStatus.PENDING);
            }
            Checks.eventually(() -> p.b.stats().eagerDropped.sum() == 3, WAIT, "b dropping the held messages");
            assertThatThrownBy(() -> p.b.recv("kv", 0, 100)).isInstanceOf(EndpointException.class);
            p.b.close();
            assertThat(rendezvous.isSettled()).isTrue();
        }
    }
}
