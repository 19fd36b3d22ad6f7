package io.slime4j.cli;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Prints {@code perf} results: a table per operation and mode in the style of perftest
 * ({@code ib_write_bw}, {@code ib_write_lat}), or with {@code --json} one JSON object per row.
 */
final class Report {
    private static final String RULE = "-".repeat(118);

    private final PrintStream out;
    private final PerfPlan plan;
    private final String where;
    private PerfPlan.Op op;
    private PerfPlan.Mode mode;
    private boolean warmupShown;

    Report(PrintStream out, PerfPlan plan, String where) {
        this.out = out;
        this.plan = plan;
        this.where = where;
    }

    /** Before a row runs: the table's header when the operation or mode changes. */
    void begin(PerfPlan.Row row) {
        if (!plan.json() && (row.op() != op || row.mode() != mode)) {
            op = row.op();
            mode = row.mode();
            header(row);
            out.flush();
        }
    }

    /** After a row: its line, or its JSON object. */
    void row(RowResult r) {
        if (plan.json()) {
            out.println(r.toJson());
            out.flush();
            return;
        }
        PerfPlan.Row row = r.row();
        String checked = plan.verify() ? (r.verified() ? "yes" : "NO") : "-";
        if (mode == PerfPlan.Mode.BW) {
            out.printf(Locale.ROOT, " %-10d %-12d %-19.2f %-14.6f %-12.2f %-12.2f %-8d %-8d %-8d %s%n", row.bytes(),
                    row.iters(), r.megabytesPerSecond(), r.messagesPerSecond() / 1e6, r.latencyMicros(0.5),
                    r.latencyMicros(0.99), r.counters()[0], r.counters()[1], r.counters()[2], checked);
        } else {
            out.printf(Locale.ROOT, " %-10d %-12d %-12.2f %-12.2f %-14.2f %-12.2f %-14.6f %-8d %-8d %-8d %s%n",
                    row.bytes(), row.iters(), r.latencyMicros(0.5), r.latencyMicros(0.99), r.latencyMicros(0.999),
                    r.maxLatencyMicros(), r.messagesPerSecond() / 1e6, r.counters()[0], r.counters()[1],
                    r.counters()[2], checked);
        }
        out.flush();
    }

    private void header(PerfPlan.Row row) {
        out.println(RULE);
        out.printf(" %s %s Test (slime4j perf)%n", row.op().title, row.mode() == PerfPlan.Mode.BW ? "BW" : "Latency");
        if (plan.wire().equals("shm")) {
            out.printf(" Transport       : shm device (shared-memory rings, one-copy data), %s%n", where);
        } else {
            out.printf(" Transport       : soft RC over the %s wire, %s%n", plan.wire(), where);
        }
        out.printf(" Queue pairs     : %-6d Outstanding ops : %-6d MTU : %-6s Verify : %s%n", plan.qps(), row.depth(),
                plan.mtu() == 0 ? "path" : Integer.toString(plan.mtu()),
                plan.verify() ? "every byte, where it landed" : "off (--verify checks every byte)");
        out.printf(" Progress        : %s%n", plan.busyPoll()
                ? "busy-poll (both sides' progress threads spin when idle, a core each)"
                : "blocking (progress threads spin briefly, then block until work arrives; --busy-poll spins)");
        if (plan.jitWarmup() != null && !warmupShown) {
            warmupShown = true;
            out.printf(" Warm-up         : %d untimed %s of %s first (the JIT), then each row's own warm-up%n",
                    plan.jitWarmup().iters(), plan.jitWarmup().op().cli, Sizes.format(plan.jitWarmup().bytes()));
        }
        out.println(RULE);
        if (row.mode() == PerfPlan.Mode.BW) {
            out.printf(" %-10s %-12s %-19s %-14s %-12s %-12s %-8s %-8s %-8s %s%n", "#bytes", "#iterations",
                    "BW average[MB/sec]", "MsgRate[Mpps]", "t_p50[usec]", "t_p99[usec]", "retrans", "dups",
                    "timeouts", "verified");
        } else {
            out.printf(" %-10s %-12s %-12s %-12s %-14s %-12s %-14s %-8s %-8s %-8s %s%n", "#bytes", "#iterations",
                    "t_p50[usec]", "t_p99[usec]", "t_p99.9[usec]", "t_max[usec]", "MsgRate[Mpps]", "retrans", "dups",
                    "timeouts", "verified");
        }
    }

    /** The closing rule of the last table. */
    void end() {
        if (!plan.json() && op != null) {
            out.println(RULE);
            out.flush();
        }
    }
}
