package io.slime4j.wire.inproc;

import java.time.Duration;

/**
 * Faults an {@link InprocWire} injects, decided per packet sent, in this order: with probability
 * {@code dropRate} the packet is dropped; otherwise with probability {@code duplicateRate} it is
 * delivered twice; each copy is, with probability {@code reorderRate}, held back by an extra delay
 * drawn uniformly from (0, {@code maxReorderDelay}] so that later packets overtake it; every copy
 * is held back by {@code delay}. Built with {@link #builder()}; validated on construction.
 *
 * <p>Decisions are drawn from one generator per sending port, seeded with {@code seed} plus the
 * port's bind index, so a given seed, bind order and sequence of sends yields the same drops,
 * duplicates and reorder delays. Delivery order under reordering or delay still depends on timing.
 *
 * @param seed            seed of the per-port generators (default 0)
 * @param dropRate        probability a packet is dropped, in [0, 1] (default 0)
 * @param duplicateRate   probability a packet that is not dropped is delivered twice, in [0, 1]
 *                        (default 0)
 * @param reorderRate     probability each copy is held back so that later ones overtake it, in
 *                        [0, 1] (default 0)
 * @param maxReorderDelay longest extra hold of a reordered copy, at most one hour; positive when
 *                        {@code reorderRate} is (default 200 µs)
 * @param delay           hold applied to every copy, in [0, one hour] (default zero)
 */
public record FaultConfig(long seed, double dropRate, double duplicateRate, double reorderRate,
                          Duration maxReorderDelay, Duration delay) {

    /** Default of {@link #maxReorderDelay()}: 200 µs. */
    public static final Duration DEFAULT_MAX_REORDER_DELAY = Duration.ofNanos(200_000);

    /** Longest {@link #delay()} or {@link #maxReorderDelay()} accepted: one hour. */
    public static final Duration MAX_DURATION = Duration.ofHours(1);

    /** No faults: every packet is delivered once, at once. */
    public static final FaultConfig NONE = builder().build();

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException if a rate is outside [0, 1], a duration is null, negative or
     *                                  over {@link #MAX_DURATION}, or {@code reorderRate} is positive
     *                                  with a zero {@code maxReorderDelay}
     */
    public FaultConfig {
        requireRate("dropRate", dropRate);
        requireRate("duplicateRate", duplicateRate);
        requireRate("reorderRate", reorderRate);
        requireDuration("maxReorderDelay", maxReorderDelay);
        requireDuration("delay", delay);
        if (reorderRate > 0 && maxReorderDelay.isZero()) {
            throw new IllegalArgumentException("maxReorderDelay must be positive when reorderRate is, was "
                    + reorderRate);
        }
    }

    private static void requireRate(String name, double rate) {
        if (!(rate >= 0.0 && rate <= 1.0)) {
            throw new IllegalArgumentException(name + " must be in [0, 1], was " + rate);
        }
    }

    private static void requireDuration(String name, Duration d) {
        if (d == null || d.isNegative() || d.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(name + " must be a duration in [0, " + MAX_DURATION + "], was " + d);
        }
    }

    /** Whether any packet may be dropped, duplicated, reordered or delayed. */
    public boolean injectsFaults() {
        return dropRate > 0 || duplicateRate > 0 || reorderRate > 0 || !delay.isZero();
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings. */
    public Builder toBuilder() {
        return new Builder().seed(seed).dropRate(dropRate).duplicateRate(duplicateRate).reorderRate(reorderRate)
                .maxReorderDelay(maxReorderDelay).delay(delay);
    }

    /** Builds a {@link FaultConfig}; defaults in the field initialisers. */
    public static final class Builder {
        private long seed;
        private double dropRate;
        private double duplicateRate;
        private double reorderRate;
        private Duration maxReorderDelay = DEFAULT_MAX_REORDER_DELAY;
        private Duration delay = Duration.ZERO;

        private Builder() {
        }

        /** Sets {@link FaultConfig#seed()}. */
        public Builder seed(long v) { seed = v; return this; }

        /** Sets {@link FaultConfig#dropRate()}. */
        public Builder dropRate(double v) { dropRate = v; return this; }

        /** Sets {@link FaultConfig#duplicateRate()}. */
        public Builder duplicateRate(double v) { duplicateRate = v; return this; }

        /** Sets {@link FaultConfig#reorderRate()}. */
        public Builder reorderRate(double v) { reorderRate = v; return this; }

        /** Sets {@link FaultConfig#maxReorderDelay()}. */
        public Builder maxReorderDelay(Duration v) { maxReorderDelay = v; return this; }

        /** Sets {@link FaultConfig#delay()}. */
        public Builder delay(Duration v) { delay = v; return this; }

        /**
         * The config.
         *
         * @throws IllegalArgumentException if a setting is out of range
         */
        public FaultConfig build() {
            return new FaultConfig(seed, dropRate, duplicateRate, reorderRate, maxReorderDelay, delay);
        }
    }
}
