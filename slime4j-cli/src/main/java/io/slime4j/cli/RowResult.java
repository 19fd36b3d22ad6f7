package io.slime4j.cli;

import java.util.Arrays;
import java.util.Locale;

/**
 * The measured result of one {@code perf} row.
 *
 * @param row        what was run
 * @param qps        io queue pairs
 * @param wire       the wire
 * @param nanos      wall time of the timed operations, first post to last completion
 * @param latencies  per timed operation, post to completion, in nanoseconds (sorted)
 * @param verified   every byte was checked where it landed and matched
 * @param counters   retransmits, duplicates and timeouts during the row, both sides summed
 */
record RowResult(PerfPlan.Row row, int qps, String wire, long nanos, long[] latencies, boolean verified, long[] counters) {

    static RowResult of(PerfPlan.Row row, int qps, String wire, long nanos, long[] latencies, boolean verified,
                        long[] counters) {
        long[] sorted = latencies.clone();
        Arrays.sort(sorted);
        return new RowResult(row, qps, wire, nanos, sorted, verified, counters);
    }

    /** Megabytes (10^6 bytes) per second. */
    double megabytesPerSecond() {
        return row.bytes() * (double) row.iters() / (nanos / 1e9) / 1e6;
    }

    /** Operations per second. */
    double messagesPerSecond() {
        return row.iters() / (nanos / 1e9);
    }

    /** The latency at quantile {@code q} (0..1), in microseconds (nearest rank). */
    double latencyMicros(double q) {
        if (latencies.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * latencies.length);
        return latencies[Math.clamp(rank - 1, 0, latencies.length - 1)] / 1e3;
    }

    /** One JSON object on one line. */
    String toJson() {
        return String.format(Locale.ROOT, "{\"op\":\"%s\",\"mode\":\"%s\",\"bytes\":%d,\"iters\":%d,\"warmup\":%d,"
                        + "\"depth\":%d,\"qps\":%d,\"wire\":\"%s\",\"MBps\":%.2f,\"msgsPerSec\":%.1f,\"latP50us\":%.2f,"
                        + "\"latP99us\":%.2f,\"latP999us\":%.2f,\"verified\":%s,\"retransmits\":%d,\"duplicates\":%d,"
                        + "\"timeouts\":%d}",
                row.op().cli, row.mode().cli(), row.bytes(), row.iters(), row.warmup(), row.depth(), qps, wire,
                megabytesPerSecond(), messagesPerSecond(), latencyMicros(0.5), latencyMicros(0.99),
                latencyMicros(0.999), verified, counters[0], counters[1], counters[2]);
    }
}
