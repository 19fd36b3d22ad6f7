package io.slime4j.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Command-line options of {@link Compare}, validated with one-line errors naming the option. The
 * same arguments are handed to both sides of every system, so both run the same workloads.
 */
final class CompareOptions {
    /** Every system the harness knows, in table order; slime4j first (ratios are to it). */
    static final List<String> ALL_SYSTEMS = List.of("slime4j", "slime4j-busy", "shm", "shm-busy", "aeron", "jucx", "tcp", "udp", "memcpy");

    List<String> systems = ALL_SYSTEMS;
    Set<Side.Workload> workloads = EnumSet.allOf(Side.Workload.class);
    int messages = 200_000;
    int roundTrips = 20_000;
    /**
     * Untimed round trips before the timed ones. Not a tenth of them: on 2 cores the JIT compiles
     * slime4j's path for seconds, and while it runs the other core stays awake, which shortens every
     * system's wake-ups (NIO UDP's p50 was 17-22 µs after 2,000 untimed trips, 53-79 µs after 30,000).
     */
    int rttWarmup = 30_000;
    /** Untimed messages before each rate run's timed ones (the JIT's warm-up, not a tenth of the run). */
    int rateWarmup = 100_000;
    long bytes = 256L << 20;
    /**
     * Seconds of untimed transfers before each bandwidth size's timed ones, in rounds of a tenth of
     * them (at least one round). Not a tenth alone: 256 MiB of 64 KiB writes is 4,096 of them,
     * which ended before the JIT had compiled slime4j's post and completion path (the same-host
     * 64 KiB write measured 1.7-2.2 GB/s after such a warm-up, 22 GB/s in a 64 GiB run).
     */
    double bandwidthWarmupSeconds = 2;
    /**
     * Seconds from a side's connect before which nothing is timed (0: no such bound). The rate and
     * round-trip workloads run whole untimed passes until then; a bandwidth size that begins
     * earlier warms up until then, or for {@link #bandwidthWarmupSeconds} if that ends later. The
     * counted warm-ups above are too short for slime4j: on 2 cores its C2 compilations of the duty
     * cycle, the dispatcher and the responder went on until 13 s after the JVM's start (JFR's
     * compilation events, one rate workload), on the core the benchmark would use. 10 s from the
     * connect, which comes a second or two after the start, plus the last pass, which runs past
     * it, ends later than that; it doubled slime4j's rates (docs/PERFORMANCE.md, thirteenth round).
     */
    double warmupSeconds = 10;
    int[] rateSizes = {32, 1 << 10};
    int rttSize = 64;
    int[] bandwidthSizes = {64 << 10, 1 << 20, 16 << 20};
    long timeoutSeconds = 120;
    /**
     * Places in each side's memory that a bandwidth size's transfers cycle through (0: one per
     * outstanding transfer, {@link #window}). 1 is perftest's footprint, every transfer from one
     * source into one target: the working set of the memcpy column's copy of the same size.
     */
    int bandwidthBuffers = 0;
    /**
     * The most of the machine's CPU time the host may steal during a system's run before it runs
     * again (at most {@link Options#STEAL_RERUNS} times), 0..1; {@code --max-steal PERCENT}, default
     * 5, 100 to keep every run.
     */
    double maxSteal = 0.05;
    /** Aeron's idle strategy for driver and application: yield (default, the better of the two here) or backoff. */
    String aeronIdle = "yield";
    Path out;
    Path doc;
    final List<String> raw = new ArrayList<>();

    static CompareOptions parse(String[] args) {
        CompareOptions o = new CompareOptions();
        o.raw.addAll(Arrays.asList(args));
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            String value = args[i + 1];
            try {
                switch (name) {
                    case "--systems" -> o.systems = systems(value);
                    case "--workloads" -> o.workloads = workloads(value);
                    case "--messages" -> o.messages = positive(name, Options.size(value));
                    case "--round-trips" -> o.roundTrips = positive(name, Options.size(value));
                    case "--rtt-warmup" -> o.rttWarmup = nonNegative(name, Options.size(value));
                    case "--rate-warmup" -> o.rateWarmup = nonNegative(name, Options.size(value));
                    case "--bytes" -> o.bytes = positiveLong(name, Options.size(value));
                    case "--bw-warmup" -> o.bandwidthWarmupSeconds = seconds(name, value);
                    case "--warmup" -> o.warmupSeconds = seconds(name, value);
                    case "--rate-sizes" -> o.rateSizes = sizes(name, value, 8);
                    case "--bandwidth-sizes" -> o.bandwidthSizes = sizes(name, value, 1);
                    case "--bw-buffers" -> {
                        o.bandwidthBuffers = Integer.parseInt(value);
                        if (o.bandwidthBuffers < 1 || o.bandwidthBuffers > 16) {
                            throw new IllegalArgumentException("--bw-buffers must be 1..16, was " + value);
                        }
                    }
                    case "--max-steal" -> o.maxSteal = decimal(name, value, 0, 100, "a percentage 0..100") / 100;
                    case "--timeout" -> o.timeoutSeconds = positiveLong(name, Long.parseLong(value));
                    case "--aeron-idle" -> {
                        if (!value.equals("backoff") && !value.equals("yield")) {
                            throw new IllegalArgumentException("--aeron-idle must be backoff or yield, was '" + value + "'");
                        }
                        o.aeronIdle = value;
                    }
                    case "--out" -> o.out = Path.of(value);
                    case "--doc" -> o.doc = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option " + name
                            + " (known: --systems --workloads --messages --round-trips --rtt-warmup --rate-warmup --warmup --bytes --bw-warmup"
                            + " --rate-sizes --bandwidth-sizes --bw-buffers --timeout --max-steal --aeron-idle --out --doc)");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " needs a number, was '" + value + "'");
            }
        }
        o.bandwidthWarmupSeconds = atMostHalfTheTimeout(o, "--bw-warmup", o.bandwidthWarmupSeconds);
        o.warmupSeconds = atMostHalfTheTimeout(o, "--warmup", o.warmupSeconds);
        return o;
    }

    /**
     * {@code seconds} of the warm-up {@code option}, at most half of {@code --timeout} (a peer's wait
     * may cover the warm-up and a timed run): a value given larger is an error, a default larger is
     * lowered to the half.
     */
    private static double atMostHalfTheTimeout(CompareOptions o, String option, double seconds) {
        if (seconds * 2 <= o.timeoutSeconds) {
            return seconds;
        }
        if (o.raw.contains(option)) {
            throw new IllegalArgumentException(option + " " + o.raw.get(o.raw.lastIndexOf(option) + 1)
                    + " s must be at most half of --timeout (" + o.timeoutSeconds + " s): a peer's wait may cover the"
                    + " warm-up and a timed run");
        }
        return o.timeoutSeconds / 2.0;
    }

    private static List<String> systems(String value) {
        List<String> out = new ArrayList<>();
        for (String s : value.toLowerCase(Locale.ROOT).split(",")) {
            if (!ALL_SYSTEMS.contains(s.trim())) {
                throw new IllegalArgumentException("--systems: unknown system '" + s + "' (known: "
                        + String.join(",", ALL_SYSTEMS) + ")");
            }
            out.add(s.trim());
        }
        return ALL_SYSTEMS.stream().filter(out::contains).toList();
    }

    private static Set<Side.Workload> workloads(String value) {
        Set<Side.Workload> out = EnumSet.noneOf(Side.Workload.class);
        for (String s : value.split(",")) {
            try {
                out.add(Side.Workload.valueOf(s.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--workloads: unknown workload '" + s + "' (known: rate,rtt,bandwidth)");
            }
        }
        return out;
    }

    private static int[] sizes(String name, String value, int min) {
        int[] sizes = Arrays.stream(value.split(",")).mapToLong(Options::size).mapToInt(v -> (int) v).toArray();
        for (int s : sizes) {
            if (s < min || s > (64 << 20)) {
                throw new IllegalArgumentException(name + ": sizes must be in " + min + "..64M, was " + s);
            }
        }
        if (Arrays.stream(sizes).distinct().count() < sizes.length) {
            throw new IllegalArgumentException(name + ": each size once, was " + value); // a row per size
        }
        return sizes;
    }

    private static int positive(String name, long v) {
        if (v <= 0 || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + " must be positive, was " + v);
        }
        return (int) v;
    }

    private static int nonNegative(String name, long v) {
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + " must be 0 or more, was " + v);
        }
        return (int) v;
    }

    /** Seconds in [0, 600], as a decimal number; a one-line error naming {@code name} otherwise. */
    static double seconds(String name, String value) {
        return decimal(name, value, 0, 600, "seconds in [0, 600]");
    }

    /**
     * A decimal number in [{@code min}, {@code max}]; otherwise a one-line error: {@code name} must
     * be {@code what}, and the value given.
     */
    static double decimal(String name, String value, double min, double max, String what) {
        double v;
        try {
            v = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            v = Double.NaN;
        }
        if (!(v >= min && v <= max)) {
            throw new IllegalArgumentException(name + " must be " + what + ", was " + value);
        }
        return v;
    }

    private static long positiveLong(String name, long v) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + v);
        }
        return v;
    }

    /**
     * Bound on one system's whole run: {@link #timeoutSeconds} per workload it can have, plus setup;
     * the warm-up's seconds, and with message workloads one more pass of them (the last pass starts
     * before the seconds end).
     */
    long systemBoundSeconds() {
        long messageWorkloads = 1L + 2L * rateSizes.length;
        long warm = (long) Math.ceil(warmupSeconds) + (warmsUp() ? timeoutSeconds * messageWorkloads : 0);
        return timeoutSeconds * (1L + messageWorkloads + bandwidthSizes.length) + warm;
    }

    /** Whether the sides run untimed passes of the rate and round-trip workloads first ({@link #warmupSeconds}). */
    boolean warmsUp() {
        return warmupSeconds > 0 && (workloads.contains(Side.Workload.RATE) || workloads.contains(Side.Workload.RTT));
    }

    int maxBandwidthSize() {
        return Arrays.stream(bandwidthSizes).max().orElse(1);
    }

    /** Writes outstanding at once for one-sided transfers of {@code size}: about 16 MiB in flight, 1..16. */
    static int window(int size) {
        return Math.max(1, Math.min(16, (16 << 20) / size));
    }

    /** Places the transfers of {@code size} cycle through: {@link #bandwidthBuffers}, at most the window. */
    int buffers(int size) {
        return bandwidthBuffers > 0 ? Math.min(bandwidthBuffers, window(size)) : window(size);
    }

    /** Transfers of {@code size} that make up {@link #bytes} (at least 4). */
    int transfers(int size) {
        return (int) Math.max(4, bytes / size);
    }
}
