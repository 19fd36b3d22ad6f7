package io.slime4j.endpoint;

/**
 * Checks that a peer's {@link EndpointInfo} fits this endpoint before anything is connected or
 * replaced, and says exactly what does not fit and how to fix it.
 */
final class PeerCheck {
    private PeerCheck() {}

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
