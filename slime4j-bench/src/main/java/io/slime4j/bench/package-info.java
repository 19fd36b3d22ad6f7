/**
 * Benchmarks (not tests): each runs slime4j and a baseline one after the other in one invocation,
 * between two processes, and prints absolute figures with ratios. Results and the commands that
 * reproduce them are in docs/PERFORMANCE.md.
 *
 * <p>Threading: the harness runs on the main thread; a served side runs in a child JVM that it
 * starts and always stops.
 */
package io.slime4j.bench;
