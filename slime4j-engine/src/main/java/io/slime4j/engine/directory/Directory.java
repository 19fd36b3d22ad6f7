package io.slime4j.engine.directory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where engines publish their {@link PeerRecord} under a lease and look each other up by name.
 * A record lives until its lease runs out unless {@link #publish} is called again (the heartbeat);
 * publishing also puts back a record the server lost. Records that do not parse are skipped and
 * counted ({@link #badRecords()}), never returned. Every call is bounded by the backend's timeout
 * and fails with a {@link DirectoryException} naming the directory. Implementations are thread-safe.
 */
public interface Directory extends AutoCloseable {

    /** The directory's URL, e.g. {@code redis://127.0.0.1:6379}: what error messages name. */
    String url();

    /** Publishes (or refreshes) {@code record} for {@code lease}. */
    void publish(PeerRecord record, Duration lease);

    /** The live record of {@code name}, or empty. */
    Optional<PeerRecord> lookup(String name);

    /** Every live record, sorted by name. */
    List<PeerRecord> list();

    /** Removes the record of {@code record.name()} if it is still that incarnation's. */
    void unpublish(PeerRecord record);

    /** Requests sent to the server (or file operations) so far. */
    long requests();

    /** Records that did not parse, skipped. */
    long badRecords();

    /** Releases connections; published records stay until their leases end. */
    @Override
    void close();
}
