package io.slime4j.endpoint;

/**
 * A caller's bounded wait for an endpoint resource (a slot, an eager, write-with-imm or send-queue
 * credit). Where the rail's callers drive its device (busy-polling, {@link RailDrain#retriesHelp})
 * the caller helps the rail's dispatcher while it waits: what frees the resource is a completion
 * that only a driving thread takes in (the device's agent may rest up to 10 ms while callers
 * drive), and requests this caller posted may be held by the device for its next duty cycle
 * ({@link io.slime4j.verbs.WorkRequest#more}), so blocking on the resource alone could wait for
 * the agent. Elsewhere, or when another caller helps, it blocks on the resource, in slices when it
 * may help again later.
 */
final class ResourceWait {
    /**
     * The longest the caller helps before it looks at the resource again: a resource freed by
     * another thread (a slot given back, a credit returned unspent, close) comes with no completion
     * that would end the help.
     */
    static final long HELP_SLICE_NANOS = 100_000;

    /** Takes the resource: the taken thing, or null if none is free. */
    interface Attempt<T> {
        /** Takes it if it is free now. */
        T now();

        /** Takes it, waiting up to {@code nanos} for one to come free. */
        T within(long nanos) throws InterruptedException;
    }

    private ResourceWait() {
    }

    /**
     * Takes the resource through {@code attempt} within {@code timeoutNanos}, helping {@code rail}
     * (null: none) until {@code free} says one may be free; null on timeout.
     */
    static <T> T await(RailDrain rail, Awaited free, Attempt<T> attempt, long timeoutNanos) throws InterruptedException {
        T got = attempt.now();
        if (got != null) {
            return got;
        }
        long deadline = System.nanoTime() + timeoutNanos;
        long retry = OpState.HELP_RETRY_MIN_NANOS;
        while (rail != null && rail.retriesHelp()) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            long now = System.nanoTime();
            long remaining = deadline - now;
            if (remaining <= 0) {
                return attempt.now();
            }
            Boolean helped = rail.help(free, now + Math.min(remaining, HELP_SLICE_NANOS));
            got = attempt.now();
            if (got != null) {
                return got;
            }
            if (helped == null) { // another caller helps now: block on the resource a while, then try again
                got = attempt.within(Math.min(retry, Math.max(0, deadline - System.nanoTime())));
                if (got != null) {
                    return got;
                }
                retry = Math.min(retry * 2, OpState.HELP_RETRY_MAX_NANOS);
            } else {
                // a slice passed (look at the resource, then help again until the bound), or it came free
                // and another caller took it
                Thread.onSpinWait();
            }
        }
        return attempt.within(Math.max(0, deadline - System.nanoTime()));
    }
}
