package io.slime4j.cli;

import java.io.PrintStream;
import java.util.Arrays;

/** Entry point of the {@code slime4j} command: parses the sub-command and runs it. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command line and returns the exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        String command = args.length == 0 ? "demo" : args[0];
        String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
        try {
            return switch (command) {
                case "demo" -> Demo.run(rest, out);
                case "-h", "--help", "help" -> {
                    usage(out);
                    yield 0;
                }
                default -> {
                    err.println("slime4j: unknown command '" + command + "' (try: slime4j --help)");
                    yield 2;
                }
            };
        } catch (IllegalArgumentException e) {
            err.println("slime4j " + command + ": " + e.getMessage());
            return 2;
        } catch (Exception e) {
            err.println("slime4j " + command + ": " + e);
            return 1;
        }
    }

    private static void usage(PrintStream out) {
        out.println("""
                usage: slime4j <command> [options]

                commands:
                  demo [--size BYTES[K|M]] [--loss PERCENT]
                        connect two devices over the in-process wire and move data with
                        RDMA write, RDMA read, send/recv and write-with-immediate, verifying
                        every byte; --loss injects that percentage of drops, duplicates and
                        reorderings and shows the reliability layer recovering
                  help  this text""");
    }
}
