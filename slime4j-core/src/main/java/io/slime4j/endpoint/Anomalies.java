package io.slime4j.endpoint;

/**
 * Counts and logs (the first ten of each) what must never happen but is checked where it is cheap:
 * a completion that landed on another op's lease (the wrId tag detector of I2) and a peer message
 * the endpoint could not make sense of.
 */
final class Anomalies {
    private static final int LOGGED = 10;

    private final String endpoint;
    private final Stats stats;

    Anomalies(String endpoint, Stats stats) {
        this.endpoint = endpoint;
        this.stats = stats;
    }

    /** A completion whose op tag does not match the slot's tenant (ABA). */
    void aliased(long wrId, OpState tenant) {
        stats.aliasedCompletions.increment();
        if (stats.aliasedCompletions.sum() <= LOGGED) {
            Lifecycle.log().error("endpoint {}: completion {} does not belong to the slot's tenant {} (ABA)", endpoint,
                    WrIds.toString(wrId), tenant);
        }
    }

    /** A peer message or completion that makes no sense here. */
    void protocolError(String what) {
        stats.protocolErrors.increment();
        if (stats.protocolErrors.sum() <= LOGGED) {
            Lifecycle.log().error("endpoint {}: {}", endpoint, what);
        }
    }

    /** An exception the dispatch loop caught (it goes on). */
    void dispatchError(String what, Throwable e) {
        stats.dispatchErrors.increment();
        if (stats.dispatchErrors.sum() <= LOGGED) {
            Lifecycle.log().error("endpoint {}: {}", endpoint, what, e);
        }
    }
}
