package io.slime4j.endpoint;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of things that must never happen (the detectors the invariant tests read) and a few
 * that may. Package-private: tests read them through {@link RdmaEndpoint}'s accessors.
 */
final class Stats {
    /** A completion whose op tag did not match its slot's tenant: the ABA hazard (I2). */
    final LongAdder aliasedCompletions = new LongAdder();
    /** A completion that found no op on its slot (I3: nothing held the op). */
    final LongAdder lostCompletions = new LongAdder();
    /** A slot released while a receive window was short (I5). */
    final LongAdder windowShortAtRelease = new LongAdder();
    /** A peer message the endpoint could not make sense of (bad magic, unknown token). */
    final LongAdder protocolErrors = new LongAdder();
    /** An exception caught by the dispatch thread. */
    final LongAdder dispatchErrors = new LongAdder();
    /** Credit messages sent to the peer. */
    final LongAdder creditMessages = new LongAdder();
    /** Cancel notices read from the peer (its recvs cancelled before their data arrived). */
    final LongAdder cancelNoticesReceived = new LongAdder();
    /** Eager messages sent (data in one trip into the peer's bounce buffers). */
    final LongAdder eagerSent = new LongAdder();
    /** Eager messages that arrived before their recv and were held (copied out of the bounce buffer). */
    final LongAdder eagerHeld = new LongAdder();
    /** Eager messages dropped: their recv was cancelled, or the endpoint failed or closed while they were held. */
    final LongAdder eagerDropped = new LongAdder();
    /** Metas the peer sent for messages this side sent eagerly (dropped: not needed). */
    final LongAdder metasUnneeded = new LongAdder();
    /** Notices sent: a rendezvous send that found no meta (so that a small recv can answer). */
    final LongAdder noticesSent = new LongAdder();
    /** One-sided requests re-issued on another lane after theirs failed. */
    final LongAdder reissued = new LongAdder();
}
