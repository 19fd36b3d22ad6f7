package io.slime4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The whole machine's CPU time from the first line of {@code /proc/stat}, taken before and after
 * a measured run, so that a figure says what the machine was doing meanwhile: how busy its CPUs
 * were and how much time the hypervisor gave to other guests ({@code steal}). On a shared virtual
 * machine steal comes in bursts that stop a vCPU for milliseconds, and every latency tail and
 * most throughput swings of such a run follow it (docs/PERFORMANCE.md, the twelfth round), so the
 * harnesses print it next to the figures. Null where {@code /proc/stat} cannot be read.
 *
 * @param busy  ticks spent running anything (user, nice, system, irq, softirq)
 * @param idle  ticks idle or waiting for I/O
 * @param steal ticks the hypervisor ran something else on this machine's vCPUs
 */
record HostCpu(long busy, long idle, long steal) {
    private static final Path STAT = Path.of("/proc/stat");

    /** The counts now, or null where {@code /proc/stat} cannot be read. */
    static HostCpu now() {
        try {
            for (String line : Files.readAllLines(STAT)) {
                if (line.startsWith("cpu ")) {
                    return parse(line);
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return null;
    }

    /**
     * The counts of {@code /proc/stat}'s aggregate line: {@code cpu user nice system idle iowait irq
     * softirq steal ...} (kernels before 2.6.11 have no steal field: 0).
     *
     * @throws IllegalArgumentException if the line is not such a line
     */
    static HostCpu parse(String line) {
        String[] f = line.trim().split("\\s+");
        if (!f[0].equals("cpu") || f.length < 8) {
            throw new IllegalArgumentException("not /proc/stat's aggregate cpu line: " + line);
        }
        long busy = field(f, 1) + field(f, 2) + field(f, 3) + field(f, 6) + field(f, 7);
        long idle = field(f, 4) + field(f, 5);
        long steal = f.length > 8 ? field(f, 8) : 0;
        return new HostCpu(busy, idle, steal);
    }

    private static long field(String[] f, int i) {
        return Long.parseLong(f[i]);
    }

    /** The share of the machine's CPU time since {@code start} that was stolen, 0..1; NaN when no time passed. */
    double stealSince(HostCpu start) {
        long total = total() - start.total();
        return total <= 0 ? Double.NaN : (double) (steal - start.steal) / total;
    }

    /** The share of the machine's CPU time since {@code start} that ran something here, 0..1; NaN when no time passed. */
    double busySince(HostCpu start) {
        long total = total() - start.total();
        return total <= 0 ? Double.NaN : (double) (busy - start.busy) / total;
    }

    /**
     * Ticks of all CPUs together since {@code start}: {@code /proc/stat} counts in units of 10 ms
     * ({@code USER_HZ}) per CPU, so a share over fewer than about 100 of them is coarse (one tick of
     * 20 is 5%).
     */
    long ticksSince(HostCpu start) {
        return total() - start.total();
    }

    private long total() {
        return busy + idle + steal;
    }

    /**
     * What the machine did between {@code start} and {@code end}: e.g. {@code "host cpu 87% busy,
     * steal 5.2%"}, or {@code "host cpu unknown"} when either is null or no tick passed.
     */
    static String describe(HostCpu start, HostCpu end) {
        return "host cpu " + shares(start, end);
    }

    /** As {@link #describe} without the {@code "host cpu "} in front: {@code "87% busy, steal 5.2%"} or {@code "unknown"}. */
    static String shares(HostCpu start, HostCpu end) {
        if (start == null || end == null || Double.isNaN(end.stealSince(start))) {
            return "unknown";
        }
        return String.format(Locale.ROOT, "%.0f%% busy, steal %.1f%%", 100 * end.busySince(start),
                100 * end.stealSince(start));
    }

    /** Steal since {@code start} as a short label, e.g. {@code "steal 5.2%"}, or {@code "steal ?"}. */
    static String stealLabel(HostCpu start, HostCpu end) {
        if (start == null || end == null || Double.isNaN(end.stealSince(start))) {
            return "steal ?";
        }
        return String.format(Locale.ROOT, "steal %.1f%%", 100 * end.stealSince(start));
    }
}
