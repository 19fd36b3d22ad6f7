package io.slime4j.endpoint;

import java.util.function.BooleanSupplier;

/**
 * The one place a slot lease ends (I2): when the last expected completion of the lease has been
 * counted, the slot forgets its op, goes back to its free ring, and only then does the op learn that
 * this part of it finished. Runs on the dispatch thread, or on a caller's thread for requests it
 * did not post.
 */
final class SlotReleaser {
    private final EndpointHooks hooks;
    private final Transport transport;
    private final Stats stats;
    private final BooleanSupplier checkWindows;

    /**
     * {@code checkWindows} says whether I5 applies to the current release: on the dispatch thread
     * (where window receives are re-posted) of an endpoint that is neither closing nor failed.
     */
    SlotReleaser(EndpointHooks hooks, Transport transport, Stats stats, BooleanSupplier checkWindows) {
        this.hooks = hooks;
        this.transport = transport;
        this.stats = stats;
        this.checkWindows = checkWindows;
    }

    /** Counts {@code n} completions (or requests never posted) of the slot's current lease. */
    void countDown(SlotPool pool, Slot slot, int n) {
        boolean last = slot.countDown(n);
        if (!last && !hooks.releaseOnFirstCompletion()) {
            return;
        }
        if (!slot.finish()) {
            return;
        }
        OpState op = slot.tenant();
        if (checkWindows.getAsBoolean() && transport.windowsMissing() > 0) {
            stats.windowShortAtRelease.increment();
        }
        if (hooks.clearSlotOnRelease()) {
            slot.clear();
        }
        pool.release(slot);
        if (op != null) {
            op.partDone();
        } else {
            stats.lostCompletions.increment();
        }
    }
}
