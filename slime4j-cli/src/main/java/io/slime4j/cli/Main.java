package io.slime4j.cli;

import io.slime4j.endpoint.BootstrapException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Entry point of the {@code slime4j} command: parses the command line and runs a sub-command. */
@Command(name = "slime4j", usageHelpAutoWidth = true,
        description = {"RDMA-style transfers for the JVM. Start with:", "",
            "  slime4j perf          move data between two processes and show how fast",
            "  slime4j perf --help   its options", ""},
        subcommands = {PerfCommand.class, PeersCommand.class, InfoCommand.class, DemoCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @picocli.CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    private final PrintStream out;
    private final PrintStream err;

    private Main(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command line and returns the exit code: 0 done, 1 failed, 2 bad arguments. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        boolean debug = Arrays.asList(args).contains("--debug");
        CommandLine cl = new CommandLine(new Main(out, err));
        cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cl.setParameterExceptionHandler((e, a) -> {
            String name = e.getCommandLine().getCommandSpec().qualifiedName();
            err.println(name + ": " + e.getMessage().strip() + " (see: " + name + " --help)");
            if (debug) {
                e.printStackTrace(err);
            }
            return 2;
        });
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            String name = commandLine.getCommandSpec().qualifiedName();
            if (debug) {
                e.printStackTrace(err);
            }
            if (e instanceof IllegalArgumentException) {
                err.println(name + ": " + e.getMessage() + " (see: " + name + " --help)");
                return 2;
            }
            if (e instanceof CliException c) {
                err.println(name + ": " + c.getMessage());
                return c.exitCode();
            }
            if (e instanceof BootstrapException) {
                err.println(name + ": " + e.getMessage());
                return 1;
            }
            err.println(name + ": " + describe(e) + (debug ? "" : " (--debug shows where)"));
            return 1;
        });
        return cl.execute(args);
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m.replace('\n', ' ');
    }

    /** Without a sub-command: the overview. */
    @Override
    public Integer call() {
        spec.commandLine().usage(out);
        return 0;
    }

    /** The stdout of this run, for sub-commands. */
    static PrintStream out(CommandSpec spec) {
        return ((Main) spec.root().userObject()).out;
    }

    /** The stderr of this run, for sub-commands. */
    static PrintStream err(CommandSpec spec) {
        return ((Main) spec.root().userObject()).err;
    }
}
