package io.slime4j.endpoint;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Decides which io queue pair carries a one-sided request: the single routing decision of the
 * endpoint, kept here so that a pluggable selector (striping, SAR pinning) can replace it. The
 * current policy is round-robin over every request, endpoint-wide.
 */
interface QpRouter {
    /** The io queue pair index, in {@code 0..qps-1}, for the next request of an op of {@code kind}. */
    int select(OpKind kind, long length);

    /** Round-robin over {@code qps} queue pairs. Thread-safe. */
    static QpRouter roundRobin(int qps) {
        AtomicInteger next = new AtomicInteger();
        return (kind, length) -> qps == 1 ? 0 : Math.floorMod(next.getAndIncrement(), qps);
    }
}
