/**
 * Benchmarks (not tests): each runs slime4j and a baseline one after the other in one invocation,
 * between two processes, and prints absolute figures with ratios. {@link io.slime4j.bench.WriteBench}
 * compares one-sided writes with a TCP stream; {@link io.slime4j.bench.Compare} runs slime4j and
 * its peers (Aeron, UCX through JUCX, NIO TCP and UDP, memcpy) side by side and writes a table and
 * a plot. Results and the commands that reproduce them are in docs/PERFORMANCE.md.
 *
 * <p>JMH microbenchmarks of package-private hot paths are in this module under the packages they
 * measure ({@code io.slime4j.soft.*Jmh}, {@code io.slime4j.endpoint.*Jmh}): on the class path a
 * package may span jars. Those packages get no package-info here; theirs is in slime4j-core.
 *
 * <p>Threading: a harness runs on the main thread; a served side runs in a child JVM that it
 * starts and always stops. {@link io.slime4j.bench.Compare}'s relay reads each child on a daemon
 * thread.
 */
package io.slime4j.bench;
