package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@link TransferFuture#toCompletableFuture()} view: dependent stages never run on the
 * dispatch thread, and a stage that blocks stalls nothing else.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompletableFutureViewTest {

    @Test
    void dependentStagesNeverRunOnTheDispatchThread() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().qps(2).build(), 1 << 20)) {
            Set<Thread> stageThreads = ConcurrentHashMap.newKeySet();
            List<CompletableFuture<?>> stages = new ArrayList<>();
            // receives cannot complete before their sends: every stage is attached before completion, when
            // it would run on whatever thread completed the view
            for (int round = 0; round < 4; round++) { // 50 at a time: within the 64 message slots
                for (int i = 0; i < 50; i++) {
                    TransferFuture r = p.b.recv("kv", i * 64L, 64);
                    stages.add(r.toCompletableFuture().thenRun(() -> stageThreads.add(Thread.currentThread())));
                }
                for (int i = 0; i < 50; i++) {
                    p.a.send("kv", i * 64L, 64);
                }
            }
            CompletableFuture.allOf(stages.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(stageThreads).isNotEmpty().allMatch(Thread::isVirtual, "virtual (completion executor) threads")
                    .doesNotContain(p.a.dispatchThread(), p.b.dispatchThread());
            p.assertClean();
        }
    }

    @Test
    void aBlockingDependentStageDoesNotStallOtherOperations() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().qps(2).build(), 1 << 20)) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch blocked = new CountDownLatch(1);
            TransferFuture first = p.b.recv("kv", 0, 64); // pending until a sends: the stage is attached first
            CompletableFuture<Void> blocker = first.toCompletableFuture().thenRun(() -> {
                blocked.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(blocked.getCount()).isEqualTo(1);
            p.a.send("kv", 0, 64);
            assertThat(blocked.await(10, TimeUnit.SECONDS)).as("the blocking stage started").isTrue();
            // while it blocks, 300 more ops complete, both through await and through their views
            List<CompletableFuture<TransferFuture>> views = new ArrayList<>();
            for (int i = 1; i <= 300; i++) {
                TransferFuture f = i % 3 == 0 ? p.b.recv("kv", 4096 + i, 1) : p.a.write("kv", i * 64L, "kv", i * 64L, 64);
                views.add(f.toCompletableFuture());
                if (i % 3 == 0) {
                    p.a.send("kv", 0, 1);
                }
                if (i % 2 == 0) {
                    assertThat(f.get(Duration.ofSeconds(10))).isEqualTo(TransferStatus.SUCCESS);
                }
            }
            for (CompletableFuture<TransferFuture> v : views) {
                assertThat(v.get(10, TimeUnit.SECONDS).status()).isEqualTo(TransferStatus.SUCCESS);
            }
            assertThat(blocker).isNotDone();
            release.countDown();
            blocker.get(10, TimeUnit.SECONDS);
            p.assertClean();
        }
    }

    @Test
    void failuresAndCancellationsCompleteTheViewExceptionally() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.defaults(), 1 << 16)) {
            TransferFuture small = p.b.recv("kv", 0, 10);
            TransferFuture tooLong = p.a.send("kv", 0, 20);
            assertThatThrownBy(() -> tooLong.toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TransferFailedException.class);
            assertThatThrownBy(tooLong::join).isInstanceOf(TransferFailedException.class).hasMessageContaining("LOC_LEN_ERR");
            small.get(Duration.ofSeconds(10));
            TransferFuture pending = p.b.immRecv();
            CompletableFuture<TransferFuture> view = pending.toCompletableFuture();
            assertThat(p.b.cancelAll()).isEqualTo(1);
            assertThatThrownBy(() -> view.get(10, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
            assertThat(pending.status()).isEqualTo(TransferStatus.CANCELLED);
            // a view created after completion is already complete; completing a copy affects only that copy
            TransferFuture done = p.a.write("kv", 0, "kv", 0, 8).join();
            CompletableFuture<TransferFuture> copy = done.toCompletableFuture();
            assertThat(copy).isCompletedWithValue(done);
            TransferFuture later = p.b.immRecv();
            later.toCompletableFuture().complete(later);
            assertThat(later.isDone()).isFalse();
            assertThat(later.toCompletableFuture()).isNotDone();
            p.b.cancelAll();
            p.assertClean();
        }
    }
}
