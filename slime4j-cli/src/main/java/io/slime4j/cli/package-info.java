/**
 * The {@code slime4j} command (picocli). {@link io.slime4j.cli.Main} dispatches: {@code perf}
 * (PerfCommand: options and roles; PerfClient, the active side; PerfServer, the passive side;
 * LoopbackServer, the second JVM of a no-argument run; Pattern, the verified data; Report, the
 * perftest-style table or JSON; PerfLink and PerfControl, what the measuring loops post to and talk
 * over — an endpoint and the TCP side channel, or a TransferEngine and EngineControl when
 * DirectoryPerf runs {@code perf --directory}), {@code peers}, {@code info} and {@code demo}. See
 * docs/CLI.md.
 *
 * <p>Threading: commands run on the main thread; a perf server runs one receiver thread per
 * two-sided or immediate row, a loopback server one thread watching its parent, and the devices
 * and endpoints bring their own progress agents and dispatch threads.
 */
package io.slime4j.cli;
