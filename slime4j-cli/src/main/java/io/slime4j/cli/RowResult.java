package io.slime4j.cli;

import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The measured result of one {@code perf} row.
 *
 * @param row        what was run
 * @param qps        io queue pairs
 * @param wire       the wire
 * @param nanos      wall time of the timed operations, first post to last completion
 * @param latencies  every timed operation's time from post to completion, in nanoseconds (three
 *                   significant digits, so a percentile is within 0.1% of the exact one)
 * @param verified   every byte was checked where it landed and matched
 * @param counters   retransmits, duplicates and timeouts during the row, both sides summed
 */
record RowResult(PerfPlan.Row row, int qps, String wire, long nanos, Histogram latencies, boolean verified, long[] counters) {

    /** Significant decimal digits the latency histograms keep. */
    static final int DIGITS = 3;

    /** An empty latency histogram for one row (it grows to whatever values it is given). */
    static Histogram histogram() {
        return new Histogram(DIGITS);
    }

    /** Megabytes (10^6 bytes) per second. */
    double megabytesPerSecond() {
        return row.bytes() * (double) row.iters() / (nanos / 1e9) / 1e6;
    }

    /** Operations per second. */
    double messagesPerSecond() {
        return row.iters() / (nanos / 1e9);
    }

    /** The latency at quantile {@code q} (0..1), in microseconds; 0 when nothing was recorded. */
    double latencyMicros(double q) {
        if (latencies.getTotalCount() == 0) {
            return 0;
        }
        return latencies.getValueAtPercentile(q * 100) / 1e3;
    }

    /** The longest latency, in microseconds (within the histogram's precision); 0 when nothing was recorded. */
    double maxLatencyMicros() {
        return latencies.getTotalCount() == 0 ? 0 : latencies.getMaxValue() / 1e3;
    }

    /** One JSON object on one line. */
    String toJson() {
        return String.format(Locale.ROOT, "{\"op\":\"%s\",\"mode\":\"%s\",\"bytes\":%d,\"iters\":%d,\"warmup\":%d,"
                        + "\"depth\":%d,\"qps\":%d,\"wire\":\"%s\",\"MBps\":%.2f,\"msgsPerSec\":%.1f,\"latP50us\":%.2f,"
                        + "\"latP99us\":%.2f,\"latP999us\":%.2f,\"latMaxUs\":%.2f,\"verified\":%s,\"retransmits\":%d,"
                        + "\"duplicates\":%d,\"timeouts\":%d}",
                row.op().cli, row.mode().cli(), row.bytes(), row.iters(), row.warmup(), row.depth(), qps, wire,
                megabytesPerSecond(), messagesPerSecond(), latencyMicros(0.5), latencyMicros(0.99),
                latencyMicros(0.999), maxLatencyMicros(), verified, counters[0], counters[1], counters[2]);
    }
}
