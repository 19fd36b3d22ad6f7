package io.slime4j.verbs;

import java.time.Duration;

/**
 * Queue pair attributes, as {@code ibv_qp_init_attr} and {@code ibv_qp_attr} for a reliable
 * connection. Built with {@link #builder()}; every value is validated at build time.
 *
 * @param sendQueueDepth   outstanding send requests at most (signaled or not, until retired)
 * @param recvQueueDepth   posted receives at most
 * @param maxSge           scatter/gather entries per request at most
 * @param signalAll        every send request generates a completion ({@code sq_sig_all}); when false,
 *                         only requests posted with {@link WorkRequest#signaled(boolean) signaled}
 *                         do, and failures always do
 * @param retryCount       retransmissions after a timeout without progress, 0..7; 7 is finite
 *                         (as in the InfiniBand specification, unlike RNR retry)
 * @param rnrRetry         retries after receiver-not-ready NAKs, 0..7; 7 means retry forever
 * @param ackTimeout       how long a segment waits for its ACK before it is sent again; doubled on
 *                         each retry of the same segment (capped at {@link #MAX_BACKOFF} times)
 * @param rnrTimer         how long a requester waits after an RNR NAK before sending again
 * @param mtu              payload bytes per packet, or {@link #MTU_FROM_PATH} (the default): the device
 *                         chooses the largest that its wire carries without IP fragmentation (60 KiB
 *                         on loopback, 1,408 bytes over an Ethernet MTU of 1,500; see docs/WIRE.md),
 *                         and {@link QueuePair#config()} reports the value chosen
 * @param maxReadAtomic    reads and atomics this queue pair has outstanding at most; later ones wait
 * @param initialPsn       first packet sequence number sent, or -1 for a random one
 */
public record QpConfig(int sendQueueDepth, int recvQueueDepth, int maxSge, boolean signalAll,
                       int retryCount, int rnrRetry, Duration ackTimeout, Duration rnrTimer,
                       int mtu, int maxReadAtomic, long initialPsn) {

    /** The largest factor by which exponential backoff stretches {@link #ackTimeout()}. */
    public static final int MAX_BACKOFF = 32;
    /** Largest queue depth. */
    public static final int MAX_DEPTH = 1 << 16;
    /** Most scatter/gather entries a work request may have. */
    public static final int MAX_SGE = 256;
    /** Smallest and largest MTU. */
    public static final int MIN_MTU = 256;
    public static final int MAX_MTU = 65_000;
    /** {@link #mtu()} value meaning "the largest the path carries unfragmented", at most {@link #DEFAULT_MAX_MTU}. */
    public static final int MTU_FROM_PATH = 0;
    /** The largest MTU a device chooses for {@link #MTU_FROM_PATH}: 60 KiB (loopback). */
    public static final int DEFAULT_MAX_MTU = 60 << 10;
    /** {@code rnrRetry} value meaning "retry forever". */
    public static final int RNR_RETRY_INFINITE = 7;

    public QpConfig {
        check(sendQueueDepth >= 1 && sendQueueDepth <= MAX_DEPTH, "sendQueueDepth", sendQueueDepth, "1.." + MAX_DEPTH);
        check(recvQueueDepth >= 1 && recvQueueDepth <= MAX_DEPTH, "recvQueueDepth", recvQueueDepth, "1.." + MAX_DEPTH);
        check(maxSge >= 1 && maxSge <= MAX_SGE, "maxSge", maxSge, "1.." + MAX_SGE);
        check(retryCount >= 0 && retryCount <= 7, "retryCount", retryCount, "0..7");
        check(rnrRetry >= 0 && rnrRetry <= 7, "rnrRetry", rnrRetry, "0..7");
        check(mtu == MTU_FROM_PATH || mtu >= MIN_MTU && mtu <= MAX_MTU, "mtu", mtu,
                "0 (from the path) or " + MIN_MTU + ".." + MAX_MTU);
        check(maxReadAtomic >= 1 && maxReadAtomic <= 256, "maxReadAtomic", maxReadAtomic, "1..256");
        check(initialPsn >= -1 && initialPsn <= 0xFFFF_FFFFL, "initialPsn", initialPsn, "-1 or 0..2^32-1");
        if (ackTimeout == null || ackTimeout.isNegative() || ackTimeout.isZero() || ackTimeout.toSeconds() > 3600) {
            throw new IllegalArgumentException("ackTimeout must be in (0, 1h], was " + ackTimeout);
        }
        if (rnrTimer == null || rnrTimer.isNegative() || rnrTimer.isZero() || rnrTimer.toSeconds() > 3600) {
            throw new IllegalArgumentException("rnrTimer must be in (0, 1h], was " + rnrTimer);
        }
    }

    private static void check(boolean ok, String name, long value, String range) {
        if (!ok) {
            throw new IllegalArgumentException(name + " must be in " + range + ", was " + value);
        }
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults. */
    public static QpConfig defaults() {
        return builder().build();
    }

    /** A builder initialised from this configuration. */
    public Builder toBuilder() {
        return new Builder().sendQueueDepth(sendQueueDepth).recvQueueDepth(recvQueueDepth).maxSge(maxSge)
                .signalAll(signalAll).retryCount(retryCount).rnrRetry(rnrRetry).ackTimeout(ackTimeout)
                .rnrTimer(rnrTimer).mtu(mtu).maxReadAtomic(maxReadAtomic).initialPsn(initialPsn);
    }

    /** Builds a {@link QpConfig}; defaults in the field initialisers. */
    public static final class Builder {
        private int sendQueueDepth = 1024;
        private int recvQueueDepth = 1024;
        private int maxSge = 16;
        private boolean signalAll = true;
        private int retryCount = 7;
        private int rnrRetry = RNR_RETRY_INFINITE;
        private Duration ackTimeout = Duration.ofMillis(100);
        private Duration rnrTimer = Duration.ofMillis(1);
        private int mtu = MTU_FROM_PATH;
        private int maxReadAtomic = 16;
        private long initialPsn = -1;

        public Builder sendQueueDepth(int v) { sendQueueDepth = v; return this; }
        public Builder recvQueueDepth(int v) { recvQueueDepth = v; return this; }
        public Builder maxSge(int v) { maxSge = v; return this; }
        public Builder signalAll(boolean v) { signalAll = v; return this; }
        public Builder retryCount(int v) { retryCount = v; return this; }
        public Builder rnrRetry(int v) { rnrRetry = v; return this; }
        public Builder ackTimeout(Duration v) { ackTimeout = v; return this; }
        public Builder rnrTimer(Duration v) { rnrTimer = v; return this; }
        public Builder mtu(int v) { mtu = v; return this; }
        public Builder maxReadAtomic(int v) { maxReadAtomic = v; return this; }
        public Builder initialPsn(long v) { initialPsn = v; return this; }

        public QpConfig build() {
            return new QpConfig(sendQueueDepth, recvQueueDepth, maxSge, signalAll, retryCount, rnrRetry,
                    ackTimeout, rnrTimer, mtu, maxReadAtomic, initialPsn);
        }
    }
}
