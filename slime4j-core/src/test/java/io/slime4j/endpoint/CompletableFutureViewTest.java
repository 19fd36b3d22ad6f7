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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TransferFuture} as a {@link java.util.concurrent.CompletionStage}: dependent stages never run
 * on the dispatch thread or a progress agent, a stage that blocks stalls nothing else, and an op's
 * stages cost one completion task however many there are.
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
    void stagesAddedOnTheFutureItselfNeverRunOnAnEndpointOrEngineThread() throws Exception {
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().qps(2).build(), 1 << 20)) {
            Set<String> stageThreads = ConcurrentHashMap.newKeySet();
            List<CompletableFuture<?>> stages = new ArrayList<>();
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 50; i++) {
                    TransferFuture r = p.b.recv("kv", i * 64L, 64);
                    stages.add(r.thenRun(() -> stageThreads.add(Thread.currentThread().getName())));
                    stages.add(r.whenComplete((f, e) -> stageThreads.add(Thread.currentThread().getName())));
                }
                List<TransferFuture> sends = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    sends.add(p.a.send("kv", i * 64L, 64));
                }
                stages.add(TransferFuture.allOf(sends).thenRun(() -> stageThreads.add(Thread.currentThread().getName())));
            }
            CompletableFuture.allOf(stages.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(stageThreads).isNotEmpty()
                    .doesNotContain(p.a.dispatchThread().getName(), p.b.dispatchThread().getName())
                    .noneMatch(n -> n.contains("agent"), "a progress agent thread")
                    .noneMatch(n -> n.contains("dispatch"), "a dispatch thread");
            p.assertClean();
        }
    }

    @Test
    void anOpsStagesShareOneCompletionTaskHoweverManyThereAre() throws Exception {
        AtomicInteger tasks = new AtomicInteger();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(1);
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().completionExecutor(task -> {
            tasks.incrementAndGet();
            pool.execute(task);
        }).build(), 1 << 16)) {
            TransferFuture r = p.b.recv("kv", 0, 64); // pending: every stage is attached before completion
            List<CompletableFuture<?>> stages = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                stages.add(r.toCompletableFuture());
                stages.add(r.thenApply(TransferFuture::byteCount));
                stages.add(r.thenRun(() -> { }));
            }
            assertThat(tasks.get()).isZero();
            p.a.send("kv", 0, 64).join();
            CompletableFuture.allOf(stages.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            assertThat(tasks.get()).as("completion tasks for one op with 30 stages").isEqualTo(1);
            // ops nobody asks a stage of cost no task at all
            for (int i = 0; i < 20; i++) {
                p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(64)).join();
            }
            assertThat(tasks.get()).isEqualTo(1);
            p.assertClean();
        } finally {
            pool.shutdownNow();
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
                TransferFuture f = i % 3 == 0 ? p.b.recv("kv", 4096 + i, 1) : p.a.write(Assignment.local("kv", i * 64L).remote("kv", i * 64L).length(64));
                views.add(f.toCompletableFuture());
                if (i % 3 == 0) {
                    p.a.send("kv", 0, 1);
                }
                if (i % 2 == 0) {
                    assertThat(f.await(Duration.ofSeconds(10))).isEqualTo(TransferStatus.SUCCESS);
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
        try (EndpointPair p = EndpointPair.open(EndpointConfig.builder().eagerThreshold(0).build() /* rendezvous: eager sends complete without their recv (EagerMessagesTest) */, 1 << 16)) {
            TransferFuture small = p.b.recv("kv", 0, 10);
            TransferFuture tooLong = p.a.send("kv", 0, 20);
            assertThatThrownBy(() -> tooLong.toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TransferFailedException.class);
            assertThatThrownBy(tooLong::join).isInstanceOf(TransferFailedException.class).hasMessageContaining("LOC_LEN_ERR");
            small.await(Duration.ofSeconds(10));
            TransferFuture pending = p.b.immRecv();
            CompletableFuture<TransferFuture> view = pending.toCompletableFuture();
            assertThat(p.b.cancelAll()).isEqualTo(1);
            assertThatThrownBy(() -> view.get(10, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
            assertThat(pending.status()).isEqualTo(TransferStatus.CANCELLED);
            // a view created after completion is already complete; completing a copy affects only that copy
            TransferFuture done = p.a.write(Assignment.local("kv", 0).remote("kv", 0).length(8)).join();
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
