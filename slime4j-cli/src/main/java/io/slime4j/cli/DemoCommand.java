package io.slime4j.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code slime4j demo}: the one-process tour of the verbs (see {@link Demo}). */
@Command(name = "demo", usageHelpAutoWidth = true,
        description = {"A one-process tour of the verbs (write, read, send, immediate).", "",
            "Two devices on the in-process wire move a buffer with RDMA write, RDMA read, SEND_WITH_IMM and "
                    + "RDMA_WRITE_WITH_IMM, check every byte, and print rates and the transport counters. "
                    + "For measurements use slime4j perf.", ""})
final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DebugOption debug;

    @Option(names = "--size", paramLabel = "N", description = "Bytes per transfer, e.g. 1M (default: ${DEFAULT-VALUE}).",
            defaultValue = "64M")
    String size;

    @Option(names = "--loss", paramLabel = "PERCENT",
            description = "Drop, duplicate and reorder this percentage of packets, 0..50 (default: ${DEFAULT-VALUE}).",
            defaultValue = "0")
    String loss;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() throws InterruptedException {
        long bytes = Sizes.parse(size);
        if (bytes < 1 || bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--size must be 1 B .. 2 GiB, was " + size);
        }
        return Demo.run(bytes, percent(loss), Main.out(spec));
    }

    private static double percent(String text) {
        try {
            double p = Double.parseDouble(text.endsWith("%") ? text.substring(0, text.length() - 1) : text);
            if (p >= 0 && p <= 50) {
                return p / 100;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("--loss must be a percentage in 0..50, was " + text);
    }
}
