package io.slime4j.soft;

import java.time.Duration;

/**
 * Settings of a {@link SoftDevice}: the reliability layer (usnic-style window, delayed ACKs,
 * priority path), congestion control and the progress agent's idling. Built with
 * {@link #builder()}; validated at build time. Queue-pair level attributes (depths, retry counts,
 * ACK timeout, MTU) are in {@link io.slime4j.verbs.QpConfig}.
 *
 * @param name              device name for logs and JMX; empty picks {@code soft-N}
 * @param sendWindow        segments in flight per queue pair at most (power of two, 64..16384; both
 *                          sides of a connection must use the same value);
 *                          usnic uses 4096
 * @param ackDelay          how long a receiver may hold back a cumulative ACK hoping to piggy-back
 *                          it (usnic: 50 µs)
 * @param ackEvery          segments received after which an ACK goes at once, delay or not
 * @param tinyMessageSize   packets up to this size (and ACKs) take the priority channel (usnic's
 *                          command channel: 768 bytes)
 * @param initialCongestionWindow segments a queue pair may have in flight before it has seen an
 *                          ACK; the window then grows additively and halves on loss (AIMD)
 * @param busySpin          the progress agent spins instead of backing off when idle (lowest
 *                          latency, burns a core: not for 2-core machines with two processes)
 * @param maxIdlePark       longest park of an idle, backing-off progress agent
 * @param timerTick         resolution of the retransmit timer wheel
 * @param coalesceLimit     packets up to this size (header included) for the same peer leave
 *                          together in one datagram at the end of the agent's turn, up to the
 *                          path's datagram size; 0 sends every packet on its own
 * @param blockingWaiters   without {@code busySpin}: a thread waiting for a completion runs the
 *                          device's cycles and blocks on its sockets itself (epoll, where the wire
 *                          offers descriptors), so the datagram that completes the wait wakes it
 *                          directly; false leaves every datagram to the agent, which wakes the
 *                          waiter (one more wake-up per completion)
 * @param waiterSpin        with {@code blockingWaiters}: how long such a waiter polls the sockets
 *                          (one {@code epoll_pwait2} with a zero timeout at a time) before its first
 *                          block of a wait, as UCX's callers progress before they arm the worker and
 *                          Linux's {@code SO_BUSY_POLL} spins before a socket sleeps; a reply that
 *                          comes within it costs no wake-up (0..10 ms, 50 µs by default; zero
 *                          blocks at once). Bounded by the block's timeout: {@code maxIdlePark}
 *                          while something is unacknowledged
 */
public record SoftConfig(String name, int sendWindow, Duration ackDelay, int ackEvery, int tinyMessageSize,
                         int initialCongestionWindow, boolean busySpin, Duration maxIdlePark, Duration timerTick,
                         int coalesceLimit, boolean blockingWaiters, Duration waiterSpin) {

    public SoftConfig {
        if (name == null) {
            name = "";
        }
        if (sendWindow < 64 || sendWindow > 16384 || Integer.bitCount(sendWindow) != 1) {
            throw new IllegalArgumentException("sendWindow must be a power of two in 64..16384, was " + sendWindow);
        }
        requirePositive("ackDelay", ackDelay);
        requirePositive("maxIdlePark", maxIdlePark);
        requirePositive("timerTick", timerTick);
        if (ackEvery < 1 || ackEvery > sendWindow) {
            throw new IllegalArgumentException("ackEvery must be in 1..sendWindow, was " + ackEvery);
        }
        if (tinyMessageSize < 0 || tinyMessageSize > 65_000) {
            throw new IllegalArgumentException("tinyMessageSize must be in 0..65000, was " + tinyMessageSize);
        }
        if (coalesceLimit < 0 || coalesceLimit > 65_000) {
            throw new IllegalArgumentException("coalesceLimit must be in 0..65000, was " + coalesceLimit);
        }
        if (waiterSpin == null || waiterSpin.isNegative() || waiterSpin.compareTo(MAX_WAITER_SPIN) > 0) {
            throw new IllegalArgumentException("waiterSpin must be in 0..10 ms, was " + waiterSpin);
        }
        if (initialCongestionWindow < 2 || initialCongestionWindow > sendWindow) {
            throw new IllegalArgumentException("initialCongestionWindow must be in 2..sendWindow, was "
                    + initialCongestionWindow);
        }
    }

    /** The longest {@code waiterSpin}: beyond it a waiter busy-polls, which is {@code busySpin}'s choice. */
    static final Duration MAX_WAITER_SPIN = Duration.ofMillis(10);

    /**
     * The default {@code waiterSpin}: 50 µs, the value Linux's documentation suggests for
     * {@code SO_BUSY_POLL}, and as long as the idle park a block lasts while something is
     * unacknowledged; against 20 µs, 6 alternated rounds gave a 64 B round trip's p99 lower in each
     * and the message rates level or higher (docs/PERFORMANCE.md, sixteenth round).
     */
    static final Duration DEFAULT_WAITER_SPIN = Duration.ofNanos(50_000);

    /** The settings as before {@code waiterSpin} existed, with its default. */
    public SoftConfig(String name, int sendWindow, Duration ackDelay, int ackEvery, int tinyMessageSize,
                      int initialCongestionWindow, boolean busySpin, Duration maxIdlePark, Duration timerTick,
                      int coalesceLimit, boolean blockingWaiters) {
        this(name, sendWindow, ackDelay, ackEvery, tinyMessageSize, initialCongestionWindow, busySpin, maxIdlePark,
                timerTick, coalesceLimit, blockingWaiters, DEFAULT_WAITER_SPIN);
    }

    /** The settings as before {@code blockingWaiters} existed, with it on (the default). */
    public SoftConfig(String name, int sendWindow, Duration ackDelay, int ackEvery, int tinyMessageSize,
                      int initialCongestionWindow, boolean busySpin, Duration maxIdlePark, Duration timerTick,
                      int coalesceLimit) {
        this(name, sendWindow, ackDelay, ackEvery, tinyMessageSize, initialCongestionWindow, busySpin, maxIdlePark,
                timerTick, coalesceLimit, true, DEFAULT_WAITER_SPIN);
    }

    private static void requirePositive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + d);
        }
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults. */
    public static SoftConfig defaults() {
        return builder().build();
    }

    /** Builds a {@link SoftConfig}; defaults in the field initialisers. */
    public static final class Builder {
        private String name = "";
        private int sendWindow = 4096;
        private Duration ackDelay = Duration.ofNanos(50_000);
        private int ackEvery = 64;
        private int tinyMessageSize = 768;
        private int initialCongestionWindow = 256;
        private boolean busySpin = false;
        private Duration maxIdlePark = Duration.ofNanos(50_000);
        private Duration timerTick = Duration.ofNanos(100_000);
        private int coalesceLimit = 2048;
        private boolean blockingWaiters = true;
        private Duration waiterSpin = DEFAULT_WAITER_SPIN;

        public Builder name(String v) { name = v; return this; }
        public Builder sendWindow(int v) { sendWindow = v; return this; }
        public Builder ackDelay(Duration v) { ackDelay = v; return this; }
        public Builder ackEvery(int v) { ackEvery = v; return this; }
        public Builder tinyMessageSize(int v) { tinyMessageSize = v; return this; }
        public Builder initialCongestionWindow(int v) { initialCongestionWindow = v; return this; }
        public Builder busySpin(boolean v) { busySpin = v; return this; }
        public Builder maxIdlePark(Duration v) { maxIdlePark = v; return this; }
        public Builder timerTick(Duration v) { timerTick = v; return this; }
        public Builder coalesceLimit(int v) { coalesceLimit = v; return this; }
        public Builder blockingWaiters(boolean v) { blockingWaiters = v; return this; }
        public Builder waiterSpin(Duration v) { waiterSpin = v; return this; }

        public SoftConfig build() {
            return new SoftConfig(name, sendWindow, ackDelay, ackEvery, tinyMessageSize, initialCongestionWindow,
                    busySpin, maxIdlePark, timerTick, coalesceLimit, blockingWaiters, waiterSpin);
        }
    }
}
