/**
 * The {@code slime4j} command. {@link io.slime4j.cli.Main} dispatches sub-commands; for now
 * {@code demo} moves bytes between two devices and reports what it did.
 *
 * <p>Threading: commands run on the main thread; the devices they open bring their own
 * progress agents.
 */
package io.slime4j.cli;
