package io.slime4j.endpoint;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Test-only {@link EndpointHooks} that each break exactly one invariant, to show that the invariant's
 * test fails when it is broken.
 */
final class BrokenHooks {
    private BrokenHooks() {}

    /** I1 broken: every op gets the same signal, which is reset after each firing (DLSlime's old reusable DeviceSignal). */
    static EndpointHooks sharedSignal() {
        SharedResettableSignal shared = new SharedResettableSignal();
        return new WatchedHooks() {
            @Override
            OpSignal newSignal() {
                return shared;
            }
        };
    }

    /** I1 broken: every op gets the same one-shot signal (shared, never reset). */
    static EndpointHooks sharedOneShotSignal() {
        OpSignal shared = new OpSignal();
        return new WatchedHooks() {
            @Override
            OpSignal newSignal() {
                return shared;
            }
        };
    }

    /** I2 broken: a slot goes back to its free ring at the first completion of its lease. */
    static EndpointHooks earlySlotRelease() {
        return new WatchedHooks() {
            @Override
            boolean releaseOnFirstCompletion() {
                return true;
            }
        };
    }

    /** I3 broken: a slot lease holds its op only weakly (the Java analogue of a raw pointer). */
    static EndpointHooks weakLease() {
        return new WatchedHooks() {
            @Override
            boolean slotHoldsOpStrongly() {
                return false;
            }
        };
    }

    /** I4 broken: a released slot keeps its last op. */
    static EndpointHooks slotKeepsOp() {
        return new WatchedHooks() {
            @Override
            boolean clearSlotOnRelease() {
                return false;
            }
        };
    }

    /** I5 broken: one receive per window pre-posted at connect (then re-posted as usual). */
    static EndpointHooks thinWindows() {
        return new WatchedHooks() {
            @Override
            int prePosted(RecvWindow.Kind kind, int windowSize) {
                return 1;
            }
        };
    }

    /** I5 broken: a consumed window receive is re-posted only after its completion was acted on. */
    static EndpointHooks repostAfterRelease() {
        return new WatchedHooks() {
            @Override
            boolean repostBeforeRelease() {
                return false;
            }
        };
    }

    /** A signal shared by every op and reset after each firing. */
    static final class SharedResettableSignal extends OpSignal {
        private volatile CountDownLatch latch = new CountDownLatch(1);

        @Override
        void fire() {
            CountDownLatch fired = latch;
            latch = new CountDownLatch(1); // reset for the "next" op
            fired.countDown();
        }

        @Override
        public boolean isFired() {
            return latch.getCount() == 0;
        }

        @Override
        void awaitFired() throws InterruptedException {
            latch.await();
        }

        @Override
        boolean awaitFired(long nanos) throws InterruptedException {
            return latch.await(nanos, TimeUnit.NANOSECONDS);
        }
    }
}
