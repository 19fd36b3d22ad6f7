package io.slime4j.soft;

/**
 * Where the send queue stands, shared by the {@link Requester} (which starts requests) and the
 * {@link Completer} (which finishes them): the next request to start and the next to complete,
 * the reads and atomics awaiting their responses, an RNR wait in progress, and whether the
 * stream has stopped. A plain record of state with no behaviour, so that neither of the two
 * needs to call the other. Progress agent thread only.
 */
final class SendProgress {
    /** Send sequence number of the next request to start, and of the next to complete. */
    long sqStarted;
    long sqCompleted;
    /** Message sequence number of the next request that consumes a receive at the peer. */
    int msnNext;
    int outstandingReadAtomic;
    /** The newest read or atomic request's PSN, and whether it is not yet acknowledged. */
    int lastReadAtomicPsn;
    boolean readAtomicUnacked;
    /** An RNR NAK is being waited out: nothing is sent before {@link #rnrUntil}. */
    boolean rnrWaiting;
    long rnrUntil;
    int rnrPsn;
    int rnrRetriesUsed;
    /**
     * Set once a request failed (locally, or by a NAK): nothing new is sent; what is outstanding
     * still completes or times out, and the completer then reports the failure and flushes.
     */
    boolean halted;
    /** A request failed locally: later requests are not started (earlier ones still complete). */
    boolean stopNew;
}
