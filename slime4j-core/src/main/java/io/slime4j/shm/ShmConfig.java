package io.slime4j.shm;

import java.time.Duration;

/**
 * Settings of an {@link ShmDevice}.
 *
 * @param name      the device name (logs, agent thread)
 * @param busyPoll  the agent never sleeps: lowest latency for one core
 * @param spin      how long an idle agent spins before it sleeps on its doorbell (futex), and how long a
 *                  thread waiting for a completion ({@code awaitReady}) drives the device before it parks
 * @param maxSleep  the longest single sleep of an idle agent (bounds a missed wake-up and the
 *                  detection of a peer process that died)
 */
public record ShmConfig(String name, boolean busyPoll, Duration spin, Duration maxSleep) {
    public ShmConfig {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("device name must not be blank");
        }
        if (spin == null || spin.isNegative() || spin.toMillis() > 1000) {
            throw new IllegalArgumentException("spin must be in [0, 1 s], was " + spin);
        }
        if (maxSleep == null || maxSleep.isNegative() || maxSleep.isZero() || maxSleep.toMillis() > 1000) {
            throw new IllegalArgumentException("maxSleep must be in (0, 1 s], was " + maxSleep);
        }
    }

    /** A builder with the defaults: a 20 µs spin, then sleeps of at most 10 ms. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder with the environment's settings: {@code slime4j.shm.busyPoll} (system property) or
     * {@code SLIME4J_SHM_BUSY_POLL} (environment variable), true or false.
     *
     * @throws IllegalArgumentException if the value is neither
     */
    public static Builder fromEnvironment() {
        String v = System.getProperty("slime4j.shm.busyPoll", System.getenv("SLIME4J_SHM_BUSY_POLL"));
        Builder b = builder();
        if (v != null) {
            if (!v.equals("true") && !v.equals("false")) {
                throw new IllegalArgumentException("slime4j.shm.busyPoll must be true or false, was '" + v + "'");
            }
            b.busyPoll(Boolean.parseBoolean(v));
        }
        return b;
    }

    /** Builds an {@link ShmConfig}. */
    public static final class Builder {
        private String name = "shm";
        private boolean busyPoll;
        private Duration spin = Duration.ofNanos(20_000);
        private Duration maxSleep = Duration.ofMillis(10);

        public Builder name(String v) { name = v; return this; }
        public Builder busyPoll(boolean v) { busyPoll = v; return this; }
        public Builder spin(Duration v) { spin = v; return this; }
        public Builder maxSleep(Duration v) { maxSleep = v; return this; }

        public ShmConfig build() {
            return new ShmConfig(name, busyPoll, spin, maxSleep);
        }
    }
}
