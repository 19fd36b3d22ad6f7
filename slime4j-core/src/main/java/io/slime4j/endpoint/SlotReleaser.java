package io.slime4j.endpoint;

/**
 * The one place a slot lease ends (I2): when the last expected completion of the lease has been
 * counted, the slot forgets its op, goes back to its free ring, and only then does the op learn that
 * this part of it finished. Runs on the dispatch thread, or on a caller's thread for requests it
 * did not post. A {@link WindowWatch}, when the hooks install one (tests), looks at the receive
 * windows at each release; a real endpoint has none.
 */
final class SlotReleaser {
    private final EndpointHooks hooks;
    private final Stats stats;
    private final WindowWatch watch;
    private SlotPool forgetPool;
    private java.util.function.Consumer<Slot> forget;

    SlotReleaser(EndpointHooks hooks, Stats stats, WindowWatch watch) {
        this.hooks = hooks;
        this.stats = stats;
        this.watch = watch;
    }

    /**
     * At wiring, before any lease: every slot of {@code pool} released calls {@code forget} first,
     * while the slot still has its lease's fields (the recv pool: {@link Unexpected#forget}, so a recv
     * slot released without its eager arrival — its meta refused or failed, its op collected — cannot
     * stay pending and take a later message into another recv's buffer).
     */
    void forgetOnRelease(SlotPool pool, java.util.function.Consumer<Slot> forget) {
        this.forgetPool = pool;
        this.forget = forget;
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
        if (pool == forgetPool) {
            forget.accept(slot);
        }
        if (watch != null) {
            watch.onRelease();
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
