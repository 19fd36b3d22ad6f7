package io.slime4j.engine;

import io.slime4j.engine.directory.PeerRecord;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides, from directory listings, which connected peers are gone: one whose record shows another
 * incarnation at once, and one whose record has not been seen for a whole lease (so a directory
 * that lost its records and gets them back within a heartbeat, as after a Redis restart, drops
 * nobody). A listing that failed is simply not observed: an unreachable directory never drops a
 * connection. Time is passed in (milliseconds), so tests drive it.
 */
final class PeerWatch {
    private final long leaseMillis;
    private final Map<String, Long> lastSeen = new HashMap<>();
    private boolean outage;

    PeerWatch(long leaseMillis) {
        this.leaseMillis = leaseMillis;
    }

    /** A connection to {@code name} was made at {@code now}: its record counts as seen then. */
    synchronized void connected(String name, long now) {
        lastSeen.put(name, now);
    }

    /**
     * A listing failed: the directory is unreachable. The first listing after it restarts every
     * absent peer's clock (a server that lost its records gets them back within a heartbeat), so
     * time the directory was away never counts against a peer.
     */
    synchronized void directoryFailed() {
        outage = true;
    }

    /** The connection to {@code name} is gone. */
    synchronized void forget(String name) {
        lastSeen.remove(name);
    }

    /**
     * Observes a listing taken at {@code now}; returns the connected peers ({@code name} to the
     * incarnation connected to) that must be dropped, with the reason.
     */
    synchronized Map<String, String> observe(Map<String, Long> connected, List<PeerRecord> listing, long now) {
        Map<String, PeerRecord> byName = new HashMap<>();
        for (PeerRecord r : listing) {
            byName.put(r.name(), r);
        }
        Map<String, String> drop = new LinkedHashMap<>();
        for (Map.Entry<String, Long> c : connected.entrySet()) {
            String name = c.getKey();
            PeerRecord r = byName.get(name);
            if (r != null && r.incarnation() == c.getValue()) {
                lastSeen.put(name, now);
            } else if (r != null) {
                drop.put(name, "peer " + name + " is another incarnation now (" + r.incarnation() + ", was "
                        + c.getValue() + ")");
            } else {
                if (outage) {
                    lastSeen.put(name, now);
                }
                long seen = lastSeen.computeIfAbsent(name, n -> now);
                if (now - seen >= leaseMillis) {
                    drop.put(name, "the directory record of peer " + name + " expired (not seen for "
                            + (now - seen) + " ms, lease " + leaseMillis + " ms)");
                }
            }
        }
        lastSeen.keySet().retainAll(connected.keySet());
        outage = false;
        return drop;
    }
}
