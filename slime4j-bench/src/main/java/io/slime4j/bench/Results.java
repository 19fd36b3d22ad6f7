package io.slime4j.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one {@link Compare} run: per column (a system, or a system's variant such as
 * slime4j's write-with-imm) per metric, with the reason for every skipped system and free-form
 * notes (loss of raw UDP, for instance). Renders one markdown table with absolute figures and the
 * ratio of each to slime4j's. Thread-safe (the relay threads of both sides add to it).
 */
final class Results {
    /** One row of the table: a metric key such as {@code rate.32}, {@code rtt.p99} or {@code bw.1048576}. */
    record Metric(String key, String label, String unit, double scale) {}

    private final Map<String, Map<String, Double>> values = new LinkedHashMap<>();
    private final Map<String, String> skipped = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final Map<String, Integer> warmPasses = new LinkedHashMap<>();
    private final List<String> columns = new ArrayList<>();

    /**
     * Columns in table order: the systems, after slime4j and shm their write-with-imm variants, after
     * memcpy the same copies over the transfers' working set ({@link Memcpy}).
     */
    Results(List<String> systems) {
        for (String s : systems) {
            columns.add(s);
            if (s.equals("slime4j") || s.equals("shm")) {
                columns.add(s + "@imm");
            }
            if (s.equals("memcpy")) {
                columns.add("memcpy@window");
            }
        }
    }

    /** Records a figure; a second one for the same column and metric is the harness's bug (a warm-up's leaking). */
    synchronized void put(String column, String metric, double value) {
        Double earlier = values.computeIfAbsent(column, c -> new LinkedHashMap<>()).putIfAbsent(metric, value);
        if (earlier != null) {
            throw new IllegalStateException(column + " reported " + metric + " twice: " + earlier + ", then " + value);
        }
    }

    synchronized void skip(String system, String reason) {
        skipped.putIfAbsent(system, reason);
    }

    /**
     * Skips {@code system} and drops every figure it reported (its own column and its variants'):
     * a figure it reported twice leaves none of them to be trusted, the first least of all (a warm
     * pass's, if one leaked).
     */
    synchronized void refuse(String system, String reason) {
        values.keySet().removeIf(column -> system(column).equals(system));
        skip(system, reason);
    }

    /**
     * Takes in what another run's results hold (figures, skips, warm-up passes, notes): one
     * system's run kept from several ({@link Compare}, {@link StealGuard}). A figure both hold is
     * refused as {@link #put} refuses it.
     */
    void absorb(Results run) {
        List<Runnable> copies = new ArrayList<>();
        synchronized (run) {
            run.values.forEach((column, m) -> m.forEach((metric, v) -> copies.add(() -> put(column, metric, v))));
            run.skipped.forEach((system, reason) -> copies.add(() -> skip(system, reason)));
            run.warmPasses.forEach((system, passes) -> copies.add(() -> warmed(system, passes)));
            run.notes.forEach(text -> copies.add(() -> note(text)));
        }
        copies.forEach(Runnable::run);
    }

    /** {@code system} ran {@code passes} untimed passes of its message workloads first ({@code --warmup}). */
    synchronized void warmed(String system, int passes) {
        warmPasses.put(system, passes);
    }

    /** The untimed passes {@code system} reported, or null if it reported none. */
    synchronized Integer warmPasses(String system) {
        return warmPasses.get(system);
    }

    synchronized void note(String text) {
        notes.add(text);
    }

    synchronized Double get(String column, String metric) {
        Map<String, Double> m = values.get(column);
        return m == null ? null : m.get(metric);
    }

    synchronized String skipReason(String system) {
        return skipped.get(system);
    }

    synchronized List<String> columns() {
        return List.copyOf(columns);
    }

    synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    /** The rows the options ask for, in table order. */
    static List<Metric> metrics(CompareOptions o) {
        List<Metric> out = new ArrayList<>();
        if (o.workloads.contains(Side.Workload.RATE)) {
            for (int s : o.rateSizes) {
                out.add(new Metric("rate." + s, Options.format(s) + " message rate", "k msg/s", 1e-3));
            }
        }
        if (o.workloads.contains(Side.Workload.RTT)) {
            out.add(new Metric("rtt.p50", o.rttSize + " B round trip p50", "µs", 1));
            out.add(new Metric("rtt.p99", o.rttSize + " B round trip p99", "µs", 1));
            out.add(new Metric("rtt.p999", o.rttSize + " B round trip p99.9", "µs", 1));
        }
        if (o.workloads.contains(Side.Workload.BANDWIDTH)) {
            for (int s : o.bandwidthSizes) {
                out.add(new Metric("bw." + s, Options.format(s) + " one-sided write", "MB/s", 1));
            }
            for (int s : o.bandwidthSizes) { // measured by the shm device only (memcpy: the same copy)
                out.add(new Metric("bwread." + s, Options.format(s) + " one-sided read", "MB/s", 1));
            }
        }
        return out;
    }

    static String columnTitle(String column) {
        return switch (column) {
            case "slime4j" -> "slime4j";
            case "slime4j@imm" -> "slime4j write-with-imm";
            case "shm" -> "slime4j shm (same host)";
            case "shm@imm" -> "slime4j shm write-with-imm";
            case "slime4j-busy" -> "slime4j busy-poll";
            case "shm-busy" -> "slime4j shm busy-poll";
            case "aeron" -> "Aeron";
            case "jucx" -> "JUCX";
            case "tcp" -> "NIO TCP";
            case "udp" -> "NIO UDP (raw)";
            case "memcpy" -> "memcpy";
            case "memcpy@window" -> "memcpy, same working set";
            default -> column;
        };
    }

    /** The system a column belongs to. */
    static String system(String column) {
        int at = column.indexOf('@');
        return at < 0 ? column : column.substring(0, at);
    }

    /** A figure with three significant digits or so, no exponent. */
    static String number(double v) {
        double a = Math.abs(v);
        String f = a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, f, v);
    }

    /** One table cell: the figure and its ratio to slime4j's ({@code ×r}), or a dash / "skipped". */
    String cell(String column, Metric m) {
        String reason = skipReason(system(column));
        Double v = get(column, m.key());
        if (v == null) {
            return reason != null ? "skipped" : "—";
        }
        String text = number(v * m.scale());
        Double base = get("slime4j", m.key());
        if (!column.equals("slime4j") && base != null && base > 0) {
            text += " (×" + number(v / base) + ")";
        }
        return text;
    }

    /** The markdown table, then skipped systems with their reasons, then notes. */
    String markdown(CompareOptions o) {
        StringBuilder sb = new StringBuilder();
        sb.append("| workload | unit |");
        for (String c : columns()) {
            sb.append(' ').append(columnTitle(c)).append(" |");
        }
        sb.append("\n|---|---|");
        sb.append("---:|".repeat(columns().size())).append('\n');
        for (Metric m : metrics(o)) {
            sb.append("| ").append(m.label()).append(" | ").append(m.unit()).append(" |");
            for (String c : columns()) {
                sb.append(' ').append(cell(c, m)).append(" |");
            }
            sb.append('\n');
        }
        sb.append("\n(×r) is the figure divided by slime4j's in the same run: above 1 is more for rates and")
                .append(" bandwidth, slower for round trips. — : the system has no such operation, or the workload was not run.\n");
        synchronized (this) {
            if (!skipped.isEmpty()) {
                sb.append("\nSkipped:\n\n");
                skipped.forEach((s, r) -> sb.append("- ").append(columnTitle(s)).append(": ").append(r).append('\n'));
            }
            if (!notes.isEmpty() || !warmPasses.isEmpty()) {
                sb.append("\nNotes:\n\n");
                notes.forEach(n -> sb.append("- ").append(n).append('\n'));
                if (!warmPasses.isEmpty()) {
                    StringBuilder w = new StringBuilder();
                    warmPasses.forEach((system, n) -> w.append(w.isEmpty() ? "" : ", ").append(columnTitle(system))
                            .append(' ').append(n));
                    sb.append("- Untimed passes of the rate and round-trip workloads before the timed one (`--warmup`): ")
                            .append(w).append(".\n");
                }
            }
        }
        return sb.toString();
    }
}
