package io.slime4j.endpoint;

import io.slime4j.verbs.VerbsDevice;
import java.util.List;

/**
 * Checks, before anything is created, connected or replaced, that the rails given to
 * {@link RdmaEndpoint#open(List, EndpointConfig)} are usable and that a peer's {@link EndpointInfo}
 * fits this endpoint; says exactly what does not fit and how to fix it.
 */
final class PeerCheck {
    private PeerCheck() {}

    /** For {@link RdmaEndpoint#open(List, EndpointConfig)}: at least one rail, none null or repeated. */
    static void rails(List<VerbsDevice> rails, EndpointConfig config) {
        if (rails == null || rails.isEmpty() || config == null) {
            throw new IllegalArgumentException("rails must name at least one device, and config must not be null");
        }
        if (rails.size() > EndpointConfig.MAX_QPS) {
            throw new IllegalArgumentException("at most " + EndpointConfig.MAX_QPS + " rails, was " + rails.size());
        }
        for (int i = 0; i < rails.size(); i++) {
            if (rails.get(i) == null) {
                throw new IllegalArgumentException("rail " + i + " is null");
            }
            for (int j = 0; j < i; j++) {
                if (rails.get(j) == rails.get(i)) {
                    throw new IllegalArgumentException("rails " + j + " and " + i + " are the same device");
                }
            }
        }
    }

    /** For {@link RdmaEndpoint#connect}: same lanes and rails, no more message slots than here. */
    static void forConnect(String name, EndpointConfig config, int rails, EndpointInfo peer) {
        if (peer == null) {
            throw new IllegalArgumentException("peer info must not be null");
        }
        if (peer.ioQps().size() != config.qps()) {
            throw new IllegalArgumentException("endpoint " + name + " has " + config.qps()
                    + " io queue pairs but peer " + peer.name() + " has " + peer.ioQps().size()
                    + ": configure both with the same qps");
        }
        if (peer.rails().size() != rails) {
            throw new IllegalArgumentException("endpoint " + name + " has " + rails
                    + " rails but peer " + peer.name() + " has " + peer.rails().size()
                    + ": open both with the same number of rails");
        }
        if (peer.messageSlots() > config.messageSlots()) {
            throw new IllegalArgumentException("peer " + peer.name() + " has " + peer.messageSlots()
                    + " message slots, more than the " + config.messageSlots() + " of endpoint " + name
                    + " (its meta window would be too small): configure at least as many here");
        }
    }

    /** For {@link RdmaEndpoint#updatePeer}: the regions must have keys for every rail. */
    static void forUpdate(String name, int rails, EndpointInfo peer) {
        if (peer == null) {
            throw new IllegalArgumentException("peer info must not be null");
        }
        if (peer.rails().size() != rails) {
            throw new IllegalArgumentException("endpoint " + name + " has " + rails
                    + " rails but the info of peer " + peer.name() + " describes " + peer.rails().size()
                    + ": its regions have no keys for every rail (regions "
                    + peer.regions().keySet().stream().map(n -> "'" + n + "'").toList() + ")");
        }
    }
}
