package io.slime4j.verbs;

import java.util.Map;

/** A read-only view of a set of {@link Counter}s; values are updated concurrently by the device. */
public interface Counters {

    /** The current value of a counter. */
    long get(Counter counter);

    /** A snapshot of every counter, keyed by counter, in id order. */
    Map<Counter, Long> snapshot();
}
