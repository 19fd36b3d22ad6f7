package io.slime4j.soft;

import java.time.Duration;

/**
 * One progress thread shared by several {@link SoftDevice}s, e.g. the rails of an endpoint on a
 * machine with few cores: each cycle of the thread runs every member device's cycle in turn (its
 * commands, received packets, timers and queue pairs), so two rails cost one polling thread, not
 * two. UCX's worker progresses all of its transports from one thread the same way.
 *
 * <pre>{@code
 * ProgressGroup progress = ProgressGroup.create("rails");
 * SoftDevice rail0 = SoftDevice.open(wire, "udp:10.0.0.1:0", SoftConfig.defaults(), progress);
 * SoftDevice rail1 = SoftDevice.open(wire, "udp:10.0.1.1:0", SoftConfig.defaults(), progress);
 * }</pre>
 *
 * <p>Each device gets a thread of its own by default ({@link SoftDevice#open(io.slime4j.wire.Wire,
 * String, SoftConfig)}), which suits a device with a core to itself. Sharing trades the parallelism
 * of several threads for fewer threads spinning: where the cores are fewer than the busy threads,
 * sharing is faster. The thread starts when the first device opens in the group and ends when the
 * last one closes; nothing else needs closing. The group's idling (spin, yield, then park up to
 * {@code maxIdlePark}, or busy spinning) applies to all its devices.
 */
public final class ProgressGroup {
    private final ProgressAgent agent;

    private ProgressGroup(String name, boolean busySpin, Duration maxIdlePark) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a progress group needs a name, was '" + name + "'");
        }
        if (maxIdlePark == null || maxIdlePark.isNegative() || maxIdlePark.isZero()) {
            throw new IllegalArgumentException("maxIdlePark must be a positive duration, was " + maxIdlePark);
        }
        this.agent = new ProgressAgent(name, busySpin, maxIdlePark);
    }

    /** A group whose thread idles as {@link SoftConfig#defaults()} says (spin, yield, park up to 50 µs). */
    public static ProgressGroup create(String name) {
        SoftConfig d = SoftConfig.defaults();
        return new ProgressGroup(name, d.busySpin(), d.maxIdlePark());
    }

    /** A group whose thread busy-spins when idle ({@code busySpin}) or parks for up to {@code maxIdlePark}. */
    public static ProgressGroup create(String name, boolean busySpin, Duration maxIdlePark) {
        return new ProgressGroup(name, busySpin, maxIdlePark);
    }

    /** The group's name; its thread is called {@code slime4j-agent-<name>}. */
    public String name() {
        return agent.name();
    }

    ProgressAgent agent() {
        return agent;
    }

    @Override
    public String toString() {
        return "ProgressGroup{" + agent.name() + "}";
    }
}
