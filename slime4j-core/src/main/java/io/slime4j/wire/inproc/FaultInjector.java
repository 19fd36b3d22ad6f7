package io.slime4j.wire.inproc;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * The fault decisions of one sending port, drawn from its own generator seeded with
 * {@link FaultConfig#seed()} plus the port's bind index. Used only by the port's sending thread.
 * Draws happen only for faults with a positive rate, so the decisions depend on the seed, the
 * config and the sequence of sends, never on timing. A config with another seed reseeds the
 * generator.
 */
final class FaultInjector {

    private final int portIndex;
    private final FaultCounters counters;
    private FaultConfig config;
    private RandomGenerator random;
    private boolean active;
    private double dropRate;
    private double duplicateRate;
    private double reorderRate;
    private long delayNanos;
    private long maxReorderNanos;

    FaultInjector(int portIndex, FaultCounters counters) {
        this.portIndex = portIndex;
        this.counters = counters;
    }

    /** Takes {@code current} into account if it is not the config seen last; returns this. */
    FaultInjector refresh(FaultConfig current) {
        if (current != config) {
            if (config == null || current.seed() != config.seed()) {
                random = new SplittableRandom(current.seed() + portIndex);
            }
            config = current;
            active = current.injectsFaults();
            dropRate = current.dropRate();
            duplicateRate = current.duplicateRate();
            reorderRate = current.reorderRate();
            delayNanos = current.delay().toNanos();
            maxReorderNanos = current.maxReorderDelay().toNanos();
        }
        return this;
    }

    /** Whether the config injects any fault; when not, no other method needs calling. */
    boolean active() {
        return active;
    }

    /** Decides whether the datagram is dropped, and counts it. */
    boolean drop() {
        if (dropRate > 0 && random.nextDouble() < dropRate) {
            counters.increment(FaultCounters.DROPPED);
            return true;
        }
        return false;
    }

    /** Decides whether the datagram is delivered twice, and counts it. */
    boolean duplicate() {
        if (duplicateRate > 0 && random.nextDouble() < duplicateRate) {
            counters.increment(FaultCounters.DUPLICATED);
            return true;
        }
        return false;
    }

    /** Decides how long one copy is held back, in nanoseconds (0: not at all), and counts it. */
    long hold() {
        long hold = delayNanos;
        if (hold > 0) {
            counters.increment(FaultCounters.DELAYED);
        }
        if (reorderRate > 0 && random.nextDouble() < reorderRate) {
            hold += 1 + random.nextLong(maxReorderNanos);
            counters.increment(FaultCounters.REORDERED);
        }
        return hold;
    }
}
