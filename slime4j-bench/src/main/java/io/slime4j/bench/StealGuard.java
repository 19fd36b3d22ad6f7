package io.slime4j.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Runs a measured run again, a bounded number of times, while the host took more than a bound of
 * the machine's CPU time from it ({@link HostCpu}'s steal): on a shared virtual machine a run
 * that lost a tenth of its time to other guests measures them (a 64 KiB veth round at 35% steal
 * moved two fifths of what the next one did at 7%). When every run allowed met more than the bound,
 * the one that met the least counts (the last one allowed, kept whatever its steal, was once a
 * 64 KiB veth run at 38% steal after two at 12% and 8%). The result says which runs were set aside
 * and at what steal, so nothing is dropped silently. A run
 * shorter than {@link #MIN_TICKS} of the machine's CPU ticks is not judged: {@code /proc/stat}
 * counts in 10 ms units, and one stolen unit of 20 would read as 5%.
 */
final class StealGuard {
    /** One measured run: its figure (MB/s, say). */
    @FunctionalInterface
    interface Run {
        double run() throws Exception;
    }

    /** One measured run of any kind: what it measured (a figure, or a whole system's figures). */
    @FunctionalInterface
    interface Attempted<T> {
        T run() throws Exception;
    }

    /** The figure kept, and a label with its steal and the runs set aside before it. */
    record Result(double value, String label) {}

    /** What {@link #keep} kept, and a label with its steal and the runs set aside before it. */
    record Kept<T>(T value, String label) {}

    /** The fewest ticks of all CPUs together over which a run's steal is judged (a second of CPU time). */
    static final long MIN_TICKS = 100;

    private final double maxSteal;
    private final int reruns;
    private final Supplier<HostCpu> cpu;

    /**
     * @param maxSteal the largest share of CPU time stolen during a run that keeps it, 0..1 (1: every run counts)
     * @param reruns   runs at most after the first
     * @param cpu      the machine's CPU counts now ({@link HostCpu#now}; null when unknown: the run counts)
     */
    StealGuard(double maxSteal, int reruns, Supplier<HostCpu> cpu) {
        if (!(maxSteal >= 0 && maxSteal <= 1) || reruns < 0) {
            throw new IllegalArgumentException("maxSteal must be 0..1 and reruns at least 0, were " + maxSteal + ", " + reruns);
        }
        this.maxSteal = maxSteal;
        this.reruns = reruns;
        this.cpu = cpu;
    }

    /**
     * Runs {@code run}, and again while its steal exceeded the bound, at most {@code reruns} more
     * times; keeps the first run within the bound (or not judged), else the one with the least steal.
     * {@code unit} is the figure's, for the runs set aside (e.g. {@code "MB/s"}).
     */
    Result measure(Run run, String unit) throws Exception {
        Kept<Double> k = keep(run::run, v -> String.format(Locale.ROOT, "%.1f %s", v, unit), v -> true);
        return new Result(k.value(), k.label());
    }

    /**
     * As {@link #measure}, for a run that measures more than one figure; {@code describe} names a
     * run set aside in the label (its figure, say). A run {@code judged} refuses (one that failed,
     * say) counts as it is, whatever its steal: running it again would measure nothing better.
     */
    <T> Kept<T> keep(Attempted<T> run, Function<T, String> describe, Predicate<T> judged) throws Exception {
        List<Attempt<T>> attempts = new ArrayList<>();
        Attempt<T> kept = null;
        for (int i = 0; i <= reruns && kept == null; i++) {
            HostCpu before = cpu.get();
            T value = run.run();
            HostCpu after = cpu.get();
            boolean judge = before != null && after != null && after.ticksSince(before) >= MIN_TICKS
                    && judged.test(value);
            Attempt<T> a = new Attempt<>(value, judge ? after.stealSince(before) : 0, HostCpu.stealLabel(before, after));
            attempts.add(a);
            if (!judge || a.steal <= maxSteal) {
                kept = a;
            }
        }
        if (kept == null) { // every run met too much: the least stolen counts (the first of equals)
            kept = attempts.stream().min(Comparator.comparingDouble(a -> a.steal)).orElseThrow();
        }
        List<String> setAside = new ArrayList<>();
        for (Attempt<T> a : attempts) {
            if (a != kept) {
                setAside.add(describe.apply(a.value) + " at " + a.label);
            }
        }
        return new Kept<>(kept.value, setAside.isEmpty() ? kept.label : kept.label + " (set aside: " + String.join(", ", setAside) + ")");
    }

    /** One run's outcome, the share of CPU time stolen during it (0 when not judged), and its label. */
    private record Attempt<T>(T value, double steal, String label) {}
}
