package io.slime4j.cli;

import picocli.CommandLine.Option;

/** {@code --debug}: show the stack trace of a failure (a mixin of every command). */
final class DebugOption {
    @Option(names = "--debug", description = "Print the stack trace of a failure.")
    boolean debug;
}
