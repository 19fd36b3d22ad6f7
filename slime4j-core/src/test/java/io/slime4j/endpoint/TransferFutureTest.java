package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.verbs.WcStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link TransferFuture} behaves as a Java {@link Future} and {@link CompletionStage}; {@link TransferBatch} too. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransferFutureTest {

    @Test
    void getReturnsTheFutureOnSuccessAndIsAFutureAndACompletionStage() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 16)) {
            TransferFuture w = p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(4096));
            Future<TransferFuture> asFuture = w;
            CompletionStage<TransferFuture> asStage = w;
            assertThat((Object) asFuture.get(10, TimeUnit.SECONDS)).isSameAs(w);
            assertThat((Object) asFuture.get()).isSameAs(w);
            assertThat(asFuture.state()).isEqualTo(Future.State.SUCCESS);
            assertThat((Object) asFuture.resultNow()).isSameAs(w);
            assertThat(asStage.thenApply(TransferFuture::byteCount).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isEqualTo(4096L);
            assertThat(w.isCancelled()).isFalse();
            p.assertClean();
        }
    }

    @Test
    void getThrowsAnExecutionExceptionWhoseCauseNamesTheStatusWhenTheOpFailed() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().eagerThreshold(0).build() /* rendezvous: eager sends complete without their recv (EagerMessagesTest) */, 1 << 16)) {
            TransferFuture small = p.b.recv("kv", 0, 10);
            TransferFuture tooLong = p.a.send("kv", 0, 20);
            assertThatThrownBy(tooLong::get).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(TransferFailedException.class)
                    .hasMessageContaining("FAILED").hasMessageContaining("LOC_LEN_ERR");
            assertThatThrownBy(() -> tooLong.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(TransferFailedException.class);
            assertThat(((TransferFailedException) catchCause(tooLong)).wcStatus()).isEqualTo(WcStatus.LOC_LEN_ERR);
            assertThat(tooLong.state()).isEqualTo(Future.State.FAILED);
            assertThat(small.await(Duration.ofSeconds(10))).isEqualTo(TransferStatus.FAILED); // await never throws for failure
            assertThatThrownBy(() -> tooLong.join(Duration.ofSeconds(10))).isInstanceOf(TransferFailedException.class)
                    .hasMessageContaining("LOC_LEN_ERR");
            p.assertClean();
        }
    }

    private static Throwable catchCause(TransferFuture f) throws InterruptedException {
        try {
            f.get();
            throw new AssertionError("did not fail");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void aTimedJoinTimesOutAndIsInterruptibleWhileTheOpGoesOn() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 16)) {
            TransferFuture pending = p.b.recv("kv", 0, 64); // nothing sends yet
            long start = System.nanoTime();
            assertThatThrownBy(() -> pending.join(Duration.ofMillis(50))).isInstanceOf(TimeoutException.class);
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
            assertThatThrownBy(() -> pending.get(20, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);

            AtomicReference<Throwable> seen = new AtomicReference<>();
            CountDownLatch waiting = new CountDownLatch(1);
            Thread waiter = Thread.ofPlatform().start(() -> {
                waiting.countDown();
                try {
                    pending.join(Duration.ofSeconds(30));
                } catch (Throwable t) {
                    seen.set(t);
                }
            });
            assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(50);
            waiter.interrupt();
            waiter.join(10_000);
            assertThat(waiter.isAlive()).as("join(Duration) returned on interrupt").isFalse();
            assertThat(seen.get()).isInstanceOf(InterruptedException.class);
            assertThat(pending.isDone()).isFalse();

            p.a.send("kv", 0, 64).join(Duration.ofSeconds(10)); // the op went on: it completes normally
            assertThat(pending.join(Duration.ofSeconds(10)).byteCount()).isEqualTo(64);
            p.assertClean();
        }
    }

    @Test
    void cancellingOneReceiveCancelsOnlyItAndKeepsThePairing() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().eagerThreshold(0).build() /* rendezvous: eager sends complete without their recv (EagerMessagesTest) */, 1 << 16)) {
            TransferFuture first = p.b.recv("kv", 0, 64);
            TransferFuture second = p.b.recv("kv", 1024, 64);
            assertThat(first.cancel(false)).isTrue();
            assertThat(first.cancel(false)).as("only once").isFalse();
            assertThat(first.isCancelled()).isTrue();
            assertThat(first.isDone()).isTrue();
            assertThat(first.state()).isEqualTo(Future.State.CANCELLED);
            assertThatThrownBy(first::get).isInstanceOf(CancellationException.class).hasMessageContaining("CANCELLED");
            assertThatThrownBy(first::join).isInstanceOf(TransferFailedException.class).hasMessageContaining("CANCELLED");
            assertThat(second.isDone()).isFalse();
            // the peer is told (issue 15, item 3): the first send pairs with the cancelled receive and
            // fails, writing nothing; the second goes to the second
            Checks.eventually(() -> p.a.stats().cancelNoticesReceived.sum() == 1, Duration.ofSeconds(5),
                    "a reading the cancel notice");
            p.kvA.asSlice(0, 64).fill((byte) 1);
            p.kvA.asSlice(64, 64).fill((byte) 2);
            TransferFuture aborted = p.a.send("kv", 0, 64);
            assertThat(aborted.await(Duration.ofSeconds(10))).isEqualTo(TransferStatus.FAILED);
            assertThat(aborted.wcStatus()).isEqualTo(WcStatus.REM_ABORT_ERR);
            p.a.send("kv", 64, 64).join(Duration.ofSeconds(10));
            assertThat(second.join(Duration.ofSeconds(10)).byteCount()).isEqualTo(64);
            assertThat(p.kvB.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 1024)).isEqualTo((byte) 2);
            assertThat(p.kvB.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).as("the cancelled buffer").isZero();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!first.isSettled() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(first.isSettled()).isTrue();
            TransferFuture done = p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(8)).join();
            assertThat(done.cancel(true)).as("a completed op is not cancelled").isFalse();
            assertThat(done.isCancelled()).isFalse();
            p.assertClean();
        }
    }

    @Test
    void allOfWaitsForEveryOpOfABatch() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().qps(2).build(), 1 << 20)) {
            List<TransferFuture> ops = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                ops.add(p.a.write(Assignment.local("kv", i * 4096L).remote("kv", i * 4096L).length(4096)));
            }
            TransferBatch batch = TransferFuture.allOf(ops);
            assertThat((Object) batch.join(Duration.ofSeconds(30))).isSameAs(batch);
            assertThat(batch.isDone()).isTrue();
            assertThat(batch.isSettled()).isTrue();
            assertThat(ops).allMatch(f -> f.status() == TransferStatus.SUCCESS);
            assertThat(batch.get()).isEqualTo(ops);
            assertThat(batch.thenApply(List::size).get(10, TimeUnit.SECONDS)).isEqualTo(200);
            assertThat(TransferFuture.allOf().get()).isEmpty();
            assertThatThrownBy(() -> TransferFuture.allOf((TransferFuture) null))
                    .isInstanceOf(IllegalArgumentException.class);
            p.assertClean();
        }
    }

    @Test
    void allOfReportsTheFirstFailedOpOnlyAfterEveryOpCompleted() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().eagerThreshold(0).build() /* rendezvous: eager sends complete without their recv (EagerMessagesTest) */, 1 << 16)) {
            TransferFuture ok = p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(64));
            TransferFuture small = p.b.recv("kv", 0, 10);
            TransferFuture tooLong = p.a.send("kv", 0, 20);
            TransferFuture later = p.b.recv("kv", 100, 64);
            TransferBatch batch = TransferFuture.allOf(ok, tooLong, later);
            CompletableFuture<Integer> stage = batch.handle((v, e) -> e == null ? 0 : 1);
            assertThatThrownBy(() -> batch.join(Duration.ofMillis(300))).as("'later' is still pending")
                    .isInstanceOf(TimeoutException.class);
            assertThat(stage).isNotDone();
            p.a.send("kv", 0, 64).join(Duration.ofSeconds(10));
            assertThatThrownBy(() -> batch.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(TransferFailedException.class).hasMessageContaining("LOC_LEN_ERR");
            assertThatThrownBy(batch::join).isInstanceOf(TransferFailedException.class);
            assertThat(later.isDone()).isTrue();
            assertThat(stage.get(10, TimeUnit.SECONDS)).isEqualTo(1);
            small.await(Duration.ofSeconds(10));

            TransferFuture pending = p.b.immRecv();
            TransferBatch withPending = TransferFuture.allOf(ok, pending);
            assertThat(withPending.cancel(false)).isTrue();
            assertThat(withPending.isCancelled()).isTrue();
            assertThatThrownBy(withPending::get).isInstanceOf(CancellationException.class);
            assertThatThrownBy(() -> withPending.toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isInstanceOf(CancellationException.class);
            p.assertClean();
        }
    }
}
