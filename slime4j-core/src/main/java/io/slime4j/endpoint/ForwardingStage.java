package io.slime4j.endpoint;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The {@link CompletionStage} half of {@link TransferFuture} and {@link TransferBatch}: every
 * stage method forwards to one shared {@link CompletableFuture} that the subclass creates on first
 * use ({@link #stage()}) and that is completed off the endpoint's dispatch thread. Each method
 * returns the new {@link CompletableFuture} that {@code CompletableFuture} itself returns, so a
 * caller can {@code join} or {@code get} it. {@link #toCompletableFuture()} returns an independent
 * copy: completing or cancelling it never touches the operation or the other stages.
 *
 * @param <T> the value a successful completion carries
 */
abstract class ForwardingStage<T> implements CompletionStage<T> {

    /** The shared stage, created on first use and completed off the dispatch thread. */
    abstract CompletableFuture<T> stage();

    /** A new {@link CompletableFuture} completed as this is; each call returns another one. */
    @Override
    public final CompletableFuture<T> toCompletableFuture() {
        CompletableFuture<T> copy = new CompletableFuture<>();
        stage().whenComplete((v, e) -> {
            if (e == null) {
                copy.complete(v);
            } else { // as the stage itself: a cancellation stays a CancellationException for get()
                copy.completeExceptionally(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            }
        });
        return copy;
    }

    @Override
    public final <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) {
        return stage().thenApply(fn);
    }

    @Override
    public final <U> CompletableFuture<U> thenApplyAsync(Function<? super T, ? extends U> fn) {
        return stage().thenApplyAsync(fn);
    }

    @Override
    public final <U> CompletableFuture<U> thenApplyAsync(Function<? super T, ? extends U> fn, Executor executor) {
        return stage().thenApplyAsync(fn, executor);
    }

    @Override
    public final CompletableFuture<Void> thenAccept(Consumer<? super T> action) {
        return stage().thenAccept(action);
    }

    @Override
    public final CompletableFuture<Void> thenAcceptAsync(Consumer<? super T> action) {
        return stage().thenAcceptAsync(action);
    }

    @Override
    public final CompletableFuture<Void> thenAcceptAsync(Consumer<? super T> action, Executor executor) {
        return stage().thenAcceptAsync(action, executor);
    }

    @Override
    public final CompletableFuture<Void> thenRun(Runnable action) {
        return stage().thenRun(action);
    }

    @Override
    public final CompletableFuture<Void> thenRunAsync(Runnable action) {
        return stage().thenRunAsync(action);
    }

    @Override
    public final CompletableFuture<Void> thenRunAsync(Runnable action, Executor executor) {
        return stage().thenRunAsync(action, executor);
    }

    @Override
    public final <U, V> CompletableFuture<V> thenCombine(CompletionStage<? extends U> other, BiFunction<? super T, ? super U, ? extends V> fn) {
        return stage().thenCombine(other, fn);
    }

    @Override
    public final <U, V> CompletableFuture<V> thenCombineAsync(CompletionStage<? extends U> other, BiFunction<? super T, ? super U, ? extends V> fn) {
        return stage().thenCombineAsync(other, fn);
    }

    @Override
    public final <U, V> CompletableFuture<V> thenCombineAsync(CompletionStage<? extends U> other, BiFunction<? super T, ? super U, ? extends V> fn, Executor executor) {
        return stage().thenCombineAsync(other, fn, executor);
    }

    @Override
    public final <U> CompletableFuture<Void> thenAcceptBoth(CompletionStage<? extends U> other, BiConsumer<? super T, ? super U> action) {
        return stage().thenAcceptBoth(other, action);
    }

    @Override
    public final <U> CompletableFuture<Void> thenAcceptBothAsync(CompletionStage<? extends U> other, BiConsumer<? super T, ? super U> action) {
        return stage().thenAcceptBothAsync(other, action);
    }

    @Override
    public final <U> CompletableFuture<Void> thenAcceptBothAsync(CompletionStage<? extends U> other, BiConsumer<? super T, ? super U> action, Executor executor) {
        return stage().thenAcceptBothAsync(other, action, executor);
    }

    @Override
    public final CompletableFuture<Void> runAfterBoth(CompletionStage<?> other, Runnable action) {
        return stage().runAfterBoth(other, action);
    }

    @Override
    public final CompletableFuture<Void> runAfterBothAsync(CompletionStage<?> other, Runnable action) {
        return stage().runAfterBothAsync(other, action);
    }

    @Override
    public final CompletableFuture<Void> runAfterBothAsync(CompletionStage<?> other, Runnable action, Executor executor) {
        return stage().runAfterBothAsync(other, action, executor);
    }

    @Override
    public final <U> CompletableFuture<U> applyToEither(CompletionStage<? extends T> other, Function<? super T, U> fn) {
        return stage().applyToEither(other, fn);
    }

    @Override
    public final <U> CompletableFuture<U> applyToEitherAsync(CompletionStage<? extends T> other, Function<? super T, U> fn) {
        return stage().applyToEitherAsync(other, fn);
    }

    @Override
    public final <U> CompletableFuture<U> applyToEitherAsync(CompletionStage<? extends T> other, Function<? super T, U> fn, Executor executor) {
        return stage().applyToEitherAsync(other, fn, executor);
    }

    @Override
    public final CompletableFuture<Void> acceptEither(CompletionStage<? extends T> other, Consumer<? super T> action) {
        return stage().acceptEither(other, action);
    }

    @Override
    public final CompletableFuture<Void> acceptEitherAsync(CompletionStage<? extends T> other, Consumer<? super T> action) {
        return stage().acceptEitherAsync(other, action);
    }

    @Override
    public final CompletableFuture<Void> acceptEitherAsync(CompletionStage<? extends T> other, Consumer<? super T> action, Executor executor) {
        return stage().acceptEitherAsync(other, action, executor);
    }

    @Override
    public final CompletableFuture<Void> runAfterEither(CompletionStage<?> other, Runnable action) {
        return stage().runAfterEither(other, action);
    }

    @Override
    public final CompletableFuture<Void> runAfterEitherAsync(CompletionStage<?> other, Runnable action) {
        return stage().runAfterEitherAsync(other, action);
    }

    @Override
    public final CompletableFuture<Void> runAfterEitherAsync(CompletionStage<?> other, Runnable action, Executor executor) {
        return stage().runAfterEitherAsync(other, action, executor);
    }

    @Override
    public final <U> CompletableFuture<U> thenCompose(Function<? super T, ? extends CompletionStage<U>> fn) {
        return stage().thenCompose(fn);
    }

    @Override
    public final <U> CompletableFuture<U> thenComposeAsync(Function<? super T, ? extends CompletionStage<U>> fn) {
        return stage().thenComposeAsync(fn);
    }

    @Override
    public final <U> CompletableFuture<U> thenComposeAsync(Function<? super T, ? extends CompletionStage<U>> fn, Executor executor) {
        return stage().thenComposeAsync(fn, executor);
    }

    @Override
    public final <U> CompletableFuture<U> handle(BiFunction<? super T, Throwable, ? extends U> fn) {
        return stage().handle(fn);
    }

    @Override
    public final <U> CompletableFuture<U> handleAsync(BiFunction<? super T, Throwable, ? extends U> fn) {
        return stage().handleAsync(fn);
    }

    @Override
    public final <U> CompletableFuture<U> handleAsync(BiFunction<? super T, Throwable, ? extends U> fn, Executor executor) {
        return stage().handleAsync(fn, executor);
    }

    @Override
    public final CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
        return stage().whenComplete(action);
    }

    @Override
    public final CompletableFuture<T> whenCompleteAsync(BiConsumer<? super T, ? super Throwable> action) {
        return stage().whenCompleteAsync(action);
    }

    @Override
    public final CompletableFuture<T> whenCompleteAsync(BiConsumer<? super T, ? super Throwable> action, Executor executor) {
        return stage().whenCompleteAsync(action, executor);
    }

    @Override
    public final CompletableFuture<T> exceptionally(Function<Throwable, ? extends T> fn) {
        return stage().exceptionally(fn);
    }

    @Override
    public final CompletableFuture<T> exceptionallyAsync(Function<Throwable, ? extends T> fn) {
        return stage().exceptionallyAsync(fn);
    }

    @Override
    public final CompletableFuture<T> exceptionallyAsync(Function<Throwable, ? extends T> fn, Executor executor) {
        return stage().exceptionallyAsync(fn, executor);
    }

    @Override
    public final CompletableFuture<T> exceptionallyCompose(Function<Throwable, ? extends CompletionStage<T>> fn) {
        return stage().exceptionallyCompose(fn);
    }

    @Override
    public final CompletableFuture<T> exceptionallyComposeAsync(Function<Throwable, ? extends CompletionStage<T>> fn) {
        return stage().exceptionallyComposeAsync(fn);
    }

    @Override
    public final CompletableFuture<T> exceptionallyComposeAsync(Function<Throwable, ? extends CompletionStage<T>> fn, Executor executor) {
        return stage().exceptionallyComposeAsync(fn, executor);
    }
}
