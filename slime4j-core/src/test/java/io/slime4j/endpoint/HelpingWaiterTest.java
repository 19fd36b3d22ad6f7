package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.eventually;
import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.wire.inproc.FaultConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A caller blocked in {@link TransferFuture#await()} takes the completion queue over from the
 * dispatch thread ({@link Dispatcher#help}): its own completion reaches it directly, it handles
 * everyone else's in order, and whatever ends its wait — its completion, a cancellation, an
 * interrupt, a timeout — the dispatch thread carries on afterwards.
 */
@Timeout(60)
class HelpingWaiterTest {

    /**
     * Blocks until {@code t}'s await on {@code p.b} has begun, bounded: until it is parked, or, where
     * waiters spin (a busy-polling shm pair), until it took the queue over ({@code helpedBefore} counted
     * before it started).
     */
    private static void awaitBlocked(Thread t, EndpointPair p, long helpedBefore) throws InterruptedException {
        eventually(() -> p.waitersSpin ? p.b.helpedWaits() > helpedBefore
                        : t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING,
                Duration.ofSeconds(10), t.getName() + (p.waitersSpin ? " helping in await" : " blocked in await"));
    }

    @Test
    void aBlockedWaiterHandlesTheQueueAndGetsItsOwnCompletion() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 20)) {
            long before = p.b.helpedWaits();
            TransferFuture recv = p.b.recv("kv", 0, 64);
            AtomicReference<TransferStatus> seen = new AtomicReference<>();
            Thread waiter = Thread.ofPlatform().name("helping-waiter").start(() -> {
                try {
                    seen.set(recv.await());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            awaitBlocked(waiter, p, before);
            Patterns.fill(p.kvA, 0, 64, 7);
            success(p.a.send("kv", 0, 64));
            waiter.join(10_000);
            assertThat(seen.get()).isEqualTo(TransferStatus.SUCCESS);
            assertThat(Patterns.mismatch(p.kvB, 0, 64, 7)).isEqualTo(-1);
            assertThat(p.b.helpedWaits()).as("waits in which a caller took the queue over").isGreaterThan(before);
            p.assertClean();
        }
    }

    @Test
    void manyWaitersOnOneEndpointAllCompleteInPairOrder() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 20)) {
            int n = 24;
            List<TransferFuture> recvs = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                recvs.add(p.b.recv("kv", k * 128L, 128));
            }
            List<Thread> waiters = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int k = 0; k < n; k++) {
                TransferFuture r = recvs.get(k);
                waiters.add(Thread.ofPlatform().start(() -> {
                    try {
                        r.await(Duration.ofSeconds(20));
                    } catch (Exception e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (int k = 0; k < n; k++) {
                Patterns.fill(p.kvA, k * 128L, 100, k);
                p.a.send("kv", k * 128L, 100);
            }
            for (Thread t : waiters) {
                t.join(20_000);
                assertThat(t.isAlive()).isFalse();
            }
            assertThat(failure.get()).isNull();
            for (int k = 0; k < n; k++) {
                assertThat(success(recvs.get(k)).byteCount()).isEqualTo(100);
                assertThat(Patterns.mismatch(p.kvB, k * 128L, 100, k)).as("message %d", k).isEqualTo(-1);
            }
            p.assertClean();
        }
    }

    @Test
    void aHelperWokenByCancellationLeavesAndTheDispatchThreadCarriesOn() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 20)) {
            long before = p.b.helpedWaits();
            TransferFuture pending = p.b.recv("kv", 0, 64);
            CountDownLatch returned = new CountDownLatch(1);
            AtomicReference<TransferStatus> seen = new AtomicReference<>();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    seen.set(pending.await());
                    returned.countDown();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            awaitBlocked(waiter, p, before);
            assertThat(p.b.cancelAll()).isGreaterThanOrEqualTo(1);
            assertThat(returned.await(10, TimeUnit.SECONDS)).as("the helping waiter saw its cancellation").isTrue();
            assertThat(seen.get()).isEqualTo(TransferStatus.CANCELLED);
            // nobody waits now: the dispatch thread alone must complete the next exchange
            p.a.send("kv", 0, 64); // meets the cancelled recv's meta: fails with REM_ABORT_ERR or is matched below
            TransferFuture r = p.b.recv("kv", 64, 64);
            TransferFuture s = p.a.send("kv", 64, 64);
            eventually(() -> r.isDone() && s.isDone(), Duration.ofSeconds(10), "recv and send completed by the dispatch thread");
        }
    }

    @Test
    void anInterruptedHelperThrowsAndLeavesTheQueueToTheDispatchThread() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 20)) {
            long before = p.b.helpedWaits();
            TransferFuture pending = p.b.recv("kv", 0, 64);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    pending.await();
                } catch (InterruptedException e) {
                    thrown.set(e);
                }
            });
            awaitBlocked(waiter, p, before);
            waiter.interrupt();
            waiter.join(10_000);
            assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
            assertThat(pending.isDone()).isFalse();
            Patterns.fill(p.kvA, 0, 64, 3);
            TransferFuture s = p.a.send("kv", 0, 64);
            eventually(pending::isDone, Duration.ofSeconds(10), "the recv completed by the dispatch thread alone");
            assertThat(success(pending).byteCount()).isEqualTo(64);
            success(s);
            assertThat(Patterns.mismatch(p.kvB, 0, 64, 3)).isEqualTo(-1);
            p.assertClean();
        }
    }

    @Test
    void aTimedAwaitThatHelpsTimesOutAndTheOpGoesOn() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 20)) {
            TransferFuture pending = p.b.recv("kv", 0, 64);
            assertThatThrownBy(() -> pending.await(Duration.ofMillis(30)))
                    .isInstanceOf(java.util.concurrent.TimeoutException.class);
            // a negative timeout is a look, however negative (a deadline of now + Long.MIN_VALUE wraps)
            assertThatThrownBy(() -> pending.get(-Long.MAX_VALUE, TimeUnit.SECONDS))
                    .isInstanceOf(java.util.concurrent.TimeoutException.class);
            assertThat(pending.isDone()).isFalse();
            success(p.a.send("kv", 0, 64));
            assertThat(success(pending).byteCount()).isEqualTo(64);
            p.assertClean();
        }
    }

    /**
     * On busy-polling devices the callers drive the device, and what their own cycles complete stays
     * with them: a stream of messages, 32 outstanding as in the side-by-side rate row, is handled
     * by the posting and waiting callers, with few batches handed to a dispatch thread. Before, every
     * send's cycle that took ACKs in woke the sender's dispatch thread (a third of the messages cost
     * a wake-up in the side-by-side rate row: docs/PERFORMANCE.md).
     */
    @Test
    void onBusyPollingDevicesAMessageStreamStaysWithTheCallers() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), FaultConfig.NONE, 1 << 20,
                WatchedHooks.KEEPING_ALL, d -> d.busySpin(true))) {
            int window = 32;
            int n = 10_000;
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread receiver = Thread.ofPlatform().name("stream-receiver").start(() -> {
                try {
                    TransferFuture[] ring = new TransferFuture[window];
                    for (int i = 0; i < window; i++) {
                        ring[i] = p.b.recv("kv", i * 64L, 32);
                    }
                    for (int i = 0; i < n; i++) {
                        int k = i % window;
                        success(ring[k]);
                        if (i + window < n) {
                            ring[k] = p.b.recv("kv", k * 64L, 32);
                        }
                    }
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            TransferFuture[] ring = new TransferFuture[window];
            for (int i = 0; i < n; i++) {
                int k = i % window;
                if (ring[k] != null) {
                    success(ring[k]);
                }
                ring[k] = p.a.send("kv", k * 64L, 32);
            }
            for (TransferFuture f : ring) {
                success(f);
            }
            receiver.join(30_000);
            assertThat(receiver.isAlive()).isFalse();
            assertThat(failed.get()).isNull();
            // the sender's posts ran the cycles that took its ACKs in: their completions stayed with it
            // (5-12 batches in 6,000 messages on an idle 2-core machine; 149-376 before)
            assertThat(p.a.dispatchThreadBatches()).as("batches the sender's dispatch thread handled, of %d sends", n)
                    .isLessThan(n / 50);
            // the receiver's: its agent's cycles between two waits still hand some over (62-97 in 6,000)
            assertThat(p.b.dispatchThreadBatches()).as("batches the receiver's dispatch thread handled, of %d recvs", n)
                    .isLessThan(n / 10);
            p.assertClean();
        }
    }

    /**
     * On a busy-polling device only callers drive: a second waiter that found the queue taken by
     * another caller takes it over once that one left (it looks again after 50 µs, doubling to
     * 5 ms), rather than waiting on its signal alone for the agent's rest to end.
     */
    @Test
    void onBusyPollingDevicesAWaiterThatCouldNotHelpTakesOverWhenTheHelperLeaves() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), FaultConfig.NONE, 1 << 20,
                WatchedHooks.KEEPING_ALL, d -> d.busySpin(true))) {
            long before = p.b.helpedWaits();
            TransferFuture first = p.b.recv("kv", 0, 64);
            TransferFuture second = p.b.recv("kv", 64, 64);
            Thread helper = Thread.ofPlatform().name("first-waiter").start(() -> waitQuietly(first));
            eventually(() -> p.b.helpedWaits() > before, Duration.ofSeconds(10), "the first waiter helping");
            Thread other = Thread.ofPlatform().name("second-waiter").start(() -> waitQuietly(second));
            Thread.sleep(20); // the second waiter found the queue taken
            assertThat(p.b.helpedWaits()).as("waits helped while the first waiter helps").isEqualTo(before + 1);
            success(p.a.send("kv", 0, 64));
            helper.join(10_000);
            assertThat(first.isDone()).isTrue();
            eventually(() -> p.b.helpedWaits() >= before + 2, Duration.ofSeconds(10),
                    "the second waiter taking the queue over after the first left");
            Patterns.fill(p.kvA, 64, 64, 9);
            success(p.a.send("kv", 64, 64));
            other.join(10_000);
            assertThat(success(second).byteCount()).isEqualTo(64);
            assertThat(Patterns.mismatch(p.kvB, 64, 64, 9)).isEqualTo(-1);
            p.assertClean();
        }
    }

    /**
     * On a busy-polling device a caller that waits for a resource helps too: a sender out of eager
     * credits takes in the credits its peer returns (and sends what its device holds for the next
     * cycle) itself, rather than waiting for the agent's rest (up to 10 ms) to end.
     */
    @Test
    void onBusyPollingDevicesASenderWaitingForEagerCreditsHelps() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), FaultConfig.NONE, 1 << 20,
                WatchedHooks.KEEPING_ALL, d -> d.busySpin(true))) {
            int credits = EndpointConfig.eagerWindow(EndpointConfig.defaults().messageSlots());
            int n = credits + 16; // the peer posts no recv until the sender ran out
            long before = p.a.helpedWaits();
            List<TransferFuture> sends = new ArrayList<>();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread sender = Thread.ofPlatform().name("credit-waiter").start(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        sends.add(p.a.send("kv", (i % 64) * 64L, 32));
                    }
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            Thread.sleep(100); // the sender used its credits and waits for more
            assertThat(sender.isAlive()).as("the sender waits for credits").isTrue();
            List<TransferFuture> recvs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                recvs.add(p.b.recv("kv", (i % 64) * 64L, 32));
                if (recvs.size() >= 32) {
                    success(recvs.remove(0)); // taking a message gives its credit back (in batches)
                }
            }
            for (TransferFuture r : recvs) {
                success(r);
            }
            sender.join(30_000);
            assertThat(sender.isAlive()).isFalse();
            assertThat(failed.get()).isNull();
            assertThat(p.a.helpedWaits()).as("the sender's credit wait helped its dispatcher").isGreaterThan(before);
            for (TransferFuture f : sends) {
                success(f);
            }
            p.assertClean();
        }
    }

    private static void waitQuietly(TransferFuture f) {
        try {
            f.await(Duration.ofSeconds(30));
        } catch (Exception e) {
            // the test checks the future itself
        }
    }

    @Test
    void onSeveralRailsAMessageOpsWaiterDoesNotHelp() throws Exception {
        try (RailPair p = RailPair.inproc(2, EndpointConfig.builder().qps(2).build(), 1 << 20)) {
            TransferFuture r = p.b.recv("kv", 0, 64);
            TransferFuture s = p.a.send("kv", 0, 64);
            success(r);
            success(s);
            assertThat(p.a.helpedWaits() + p.b.helpedWaits()).as("waits helped for messages on a two-rail endpoint")
                    .isZero();
        }
    }

    @Test
    void onSeveralRailsAWriteOnOneRailIsHelpedOnThatRail_andOneOverBothCompletesToo() throws Exception {
        try (RailPair p = RailPair.inproc(2, EndpointConfig.builder().qps(2).build(), 1 << 20)) {
            for (int i = 0; i < 20; i++) {
                TransferFuture w = p.a.write(Assignment.local("kv", i * 64L).remote("kv", i * 64L).length(64));
                assertThat(w.op().rail).as("the rail of a one-request write").isBetween(0, 1);
                w.join(Duration.ofSeconds(10));
            }
            assertThat(p.a.helpedWaits()).as("waits in which a writer took its rail's queue over").isPositive();
            TransferFuture both = p.a.write(List.of(Assignment.local("kv", 0).remote("kv", 4096).length(64),
                    Assignment.local("kv", 64).remote("kv", 8192).length(64)));
            assertThat(both.op().rail).as("a write over both rails has no one rail").isEqualTo(-1);
            assertThat(both.join(Duration.ofSeconds(10)).status()).isEqualTo(TransferStatus.SUCCESS);
        }
    }
}
