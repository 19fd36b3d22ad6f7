package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A caller waiting for a resource helps a rail whose callers drive its device, and blocks on the
 * resource elsewhere: on a busy-polling device nothing else may take in the completion that frees it.
 */
@Timeout(30)
class ResourceWaitTest {
    private final Semaphore permits = new Semaphore(0);

    /** A rail whose helper frees a permit in its {@code helpsBeforeFree}-th turn (the completion that frees it). */
    private final class Rail implements RailDrain {
        final boolean driven;
        final int helpsBeforeFree;
        final AtomicInteger helps = new AtomicInteger();
        volatile boolean othersHelp;

        Rail(boolean driven, int helpsBeforeFree) { // turns before the freeing completion
            this.driven = driven;
            this.helpsBeforeFree = helpsBeforeFree;
        }

        final AtomicInteger turns = new AtomicInteger();
        boolean freed;

        /**
         * As the dispatcher's: handles completions (a turn a millisecond here) until the signal fires
         * or the time is up; like it, it notices the signal only when a completion it handles fires it.
         */
        @Override
        public Boolean help(Awaited signal, long deadline) throws InterruptedException {
            if (othersHelp) {
                return null;
            }
            helps.incrementAndGet();
            while (true) {
                if (turns.incrementAndGet() >= helpsBeforeFree && !freed) {
                    freed = true;
                    permits.release();
                }
                if (freed && signal.isFired()) {
                    return true;
                }
                if (System.nanoTime() - deadline >= 0) {
                    return false;
                }
                Thread.sleep(1);
            }
        }

        @Override
        public boolean callersPostMore() {
            return driven;
        }

        @Override
        public boolean beginPosting() {
            return false;
        }

        @Override
        public void endPosting() {
        }

        @Override
        public boolean retriesHelp() {
            return driven;
        }

        @Override
        public boolean isDispatching() {
            return false;
        }
    }

    private Boolean take(Rail rail, long timeoutNanos) throws InterruptedException {
        return ResourceWait.await(rail, () -> permits.availablePermits() > 0, new ResourceWait.Attempt<Boolean>() {
            @Override
            public Boolean now() {
                return permits.tryAcquire() ? Boolean.TRUE : null;
            }

            @Override
            public Boolean within(long nanos) throws InterruptedException {
                return permits.tryAcquire(nanos, TimeUnit.NANOSECONDS) ? Boolean.TRUE : null;
            }
        }, timeoutNanos);
    }

    @Test
    void onARailItsCallersDriveTheWaiterHelpsUntilTheCompletionThatFreesTheResource() throws Exception {
        Rail rail = new Rail(true, 3);

        assertThat(take(rail, TimeUnit.SECONDS.toNanos(5))).isTrue();
        assertThat(rail.helps.get()).as("helped").isPositive();
        assertThat(rail.turns.get()).as("until the permit came free").isEqualTo(3);
        assertThat(permits.availablePermits()).isZero();
    }

    @Test
    void elsewhereTheWaiterBlocksOnTheResourceAndDoesNotHelp() throws Exception {
        Rail rail = new Rail(false, 1);
        Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            permits.release(); // the dispatch thread freed it
        });

        assertThat(take(rail, TimeUnit.SECONDS.toNanos(5))).isTrue();
        assertThat(rail.helps.get()).isZero();
    }

    @Test
    void aWaiterThatCannotHelpBlocksInSlicesAndHelpsOnceTheOtherHelperLeft() throws Exception {
        Rail rail = new Rail(true, 1);
        rail.othersHelp = true;
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            rail.othersHelp = false; // the other helper left without freeing anything
        });

        assertThat(take(rail, TimeUnit.SECONDS.toNanos(5))).isTrue();
        assertThat(rail.helps.get()).as("took the helper's place later").isEqualTo(1);
        other.join();
    }

    @Test
    void aResourceFreedByAnotherThreadWithoutACompletionIsTakenAfterAHelpSliceNotAtTheBound() throws Exception {
        Rail rail = new Rail(true, Integer.MAX_VALUE); // no completion frees it
        Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            permits.release(); // e.g. a credit taken and given back unspent
        });
        long began = System.nanoTime();

        assertThat(take(rail, TimeUnit.SECONDS.toNanos(20))).isTrue();
        assertThat(System.nanoTime() - began).as("long before the bound").isLessThan(TimeUnit.SECONDS.toNanos(10));
    }

    @Test
    void aResourceThatNeverComesFreeEndsTheWaitAtItsBound() throws Exception {
        Rail rail = new Rail(true, Integer.MAX_VALUE);
        long began = System.nanoTime();

        assertThat(take(rail, TimeUnit.MILLISECONDS.toNanos(100))).isNull();
        assertThat(System.nanoTime() - began).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void aFreeResourceIsTakenAtOnceWithoutHelping() throws Exception {
        Rail rail = new Rail(true, 1);
        permits.release();

        assertThat(take(rail, 0)).isTrue();
        assertThat(rail.helps.get()).isZero();
    }
}
