package io.slime4j.engine;

import io.slime4j.engine.directory.Directory;
import io.slime4j.engine.directory.PeerRecord;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The heartbeat of a {@link TransferEngine}: each {@link #beat} publishes the engine's record again
 * (renewing its lease) and reads the directory's listing, dropping each connected peer that
 * {@link PeerWatch} finds gone or restarted. An unreachable directory drops nobody. Directory
 * errors are logged once each until another one comes ({@link #noteDirectoryError}).
 */
final class Heartbeat {
    private static final Logger LOG = LoggerFactory.getLogger(TransferEngine.class); // the engine's log

    private final Connections conns;
    private final Directory directory;
    private final Supplier<PeerRecord> record;
    private volatile String lastDirectoryError;

    Heartbeat(Connections conns, Directory directory, Supplier<PeerRecord> record) {
        this.conns = conns;
        this.directory = directory;
        this.record = record;
    }

    /** Publishes the record once more and checks the connected peers' records. */
    void beat() {
        try {
            directory.publish(record.get(), conns.settings.lease());
        } catch (RuntimeException e) {
            noteDirectoryError(e);
        }
        List<PeerRecord> listing;
        try {
            listing = directory.list();
        } catch (RuntimeException e) {
            noteDirectoryError(e);
            conns.watch.directoryFailed();
            return; // an unreachable directory drops nobody
        }
        Map<String, Long> connected = new LinkedHashMap<>();
        Map<String, Connection> byName = new LinkedHashMap<>();
        for (Connection c : conns.links.connections()) {
            connected.put(c.peer, c.peerIncarnation);
            byName.put(c.peer, c);
        }
        conns.watch.observe(connected, listing, System.currentTimeMillis()).forEach((peer, reason) ->
                conns.lost(byName.get(peer), reason));
    }

    /** Logs a directory error unless it is the same as the last one. */
    void noteDirectoryError(RuntimeException e) {
        String msg = e.getMessage();
        if (!msg.equals(lastDirectoryError)) {
            LOG.warn("engine {}: {}", conns.name, msg);
        }
        lastDirectoryError = msg;
    }
}
