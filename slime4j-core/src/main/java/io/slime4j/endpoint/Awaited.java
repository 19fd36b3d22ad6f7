package io.slime4j.endpoint;

/**
 * What a caller that helps a rail's dispatcher waits for ({@link RailDrain#help}): an op's signal
 * ({@link OpSignal}), or a resource coming free ({@link ResourceWait}).
 */
@FunctionalInterface
interface Awaited {
    /** Whether the wait is over; called often, from the helping thread, so it must be cheap. */
    boolean isFired();
}
