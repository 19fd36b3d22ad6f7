package io.slime4j.cli;

import io.slime4j.engine.directory.Directories;
import io.slime4j.engine.directory.Directory;
import io.slime4j.engine.directory.DirectoryException;
import io.slime4j.engine.directory.PeerRecord;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code slime4j peers --directory URL}: the live transfer engines a directory holds, one per line
 * (name, then its regions with their lengths), and a summary line on stderr.
 */
@Command(name = "peers", usageHelpAutoWidth = true,
        description = {"List the live transfer engines of a directory: one name per line, then its regions.", ""})
final class PeersCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DebugOption debug;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Option(names = "--directory", required = true, paramLabel = "URL",
            description = "redis://HOST:PORT, etcd://HOST:PORT or file:/PATH (the embedded one; default folder "
                    + "<tmp>/slime4j-directory).")
    String directory;

    @Option(names = "--long", description = "Also show incarnation, bootstrap address, host id, host identity and transports.")
    boolean detailed;

    @Override
    public Integer call() {
        PrintStream out = Main.out(spec);
        List<PeerRecord> records;
        long bad;
        try (Directory dir = Directories.open(directory)) {
            records = dir.list();
            bad = dir.badRecords();
        } catch (DirectoryException e) {
            throw new CliException(e.getMessage(), e);
        }
        for (PeerRecord r : records) {
            String regions = r.regions().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(" "));
            out.println(r.name() + (detailed ? " incarnation=" + r.incarnation() + " bootstrap=" + r.bootstrap()
                    + " host=" + r.hostId() + (r.host().isEmpty() ? "" : " identity=" + r.host())
                    + " transports=" + String.join(",", r.transports()) : "") + (regions.isEmpty() ? "" : " " + regions));
        }
        if (bad > 0) {
            spec.commandLine().getErr().println("peers: " + bad + " bad record(s) in " + directory + " skipped");
        }
        return 0;
    }
}
