package io.slime4j.bench;

/** Nearest-rank percentiles of sorted samples. */
final class Percentiles {
    private Percentiles() {}

    /** The nearest-rank {@code q}-quantile (0 &lt; q &le; 1) of {@code sorted}, which must not be empty. */
    static long of(long[] sorted, double q) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
    }
}
