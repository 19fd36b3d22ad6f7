package io.slime4j.engine;

import io.slime4j.endpoint.EndpointConfig;
import java.net.InetAddress;
import java.time.Duration;

/**
 * The validated settings of a {@link TransferEngine}, as its {@link TransferEngine.Builder} sets
 * them: {@link #of} checks each against its range and fills the defaults that depend on others
 * (the heartbeat from the lease, the host id from this host's name).
 */
record EngineSettings(Duration lease, Duration heartbeat, Duration connectTimeout, String bindHost, int rails,
                      EndpointConfig endpointConfig, String hostId, Duration progressIdlePark) {

    /**
     * The settings, {@code heartbeat} defaulting to a third of the lease and {@code hostId} to this
     * host's name.
     *
     * @throws IllegalArgumentException naming the first setting out of range
     */
    static EngineSettings of(Duration lease, Duration heartbeat, Duration connectTimeout, String bindHost, int rails,
                             EndpointConfig endpointConfig, String hostId, Duration progressIdlePark) {
        require(lease != null && lease.toMillis() >= 1000, "lease", "at least 1 s", lease);
        Duration hb = heartbeat != null ? heartbeat : lease.dividedBy(3);
        require(!hb.isNegative() && !hb.isZero() && hb.compareTo(lease) < 0, "heartbeat",
                "positive and shorter than the lease " + lease, hb);
        require(connectTimeout != null && connectTimeout.toMillis() >= 1, "connectTimeout", "positive",
                connectTimeout);
        require(rails >= 1 && rails <= EndpointConfig.MAX_QPS, "rails", "1.." + EndpointConfig.MAX_QPS, rails);
        return new EngineSettings(lease, hb, connectTimeout, bindHost, rails, endpointConfig,
                hostId != null ? hostId : localHostName(), progressIdlePark);
    }

    /** The one check of every setting: {@code "<setting> must be <rule>, was <value>"} unless {@code ok}. */
    static void require(boolean ok, String setting, String rule, Object value) {
        if (!ok) {
            throw new IllegalArgumentException(setting + " must be " + rule + ", was " + value);
        }
    }

    private static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "unknown";
        }
    }
}
