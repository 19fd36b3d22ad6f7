package io.slime4j.engine.directory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The embedded directory: no server, one lease file per engine in a folder
 * ({@code file:/tmp/slime4j-directory}, the default). A file holds the lease's end (wall-clock
 * milliseconds) on its first line and the record's JSON on the second; it is replaced atomically
 * (write a temporary file, rename), so readers see the old or the new one whole. A record whose
 * lease ended is not returned, and the next {@link #list} deletes its file (moved aside first and
 * put back if a fresh record was published over it meanwhile).
 *
 * <p>Where it stops serving: every engine must see the same folder and the same wall clock, so it
 * serves the processes of <b>one host</b> (and tests). On a network file system rename is not
 * reliably atomic and clocks differ: use Redis or etcd across hosts. Its load is a file read per
 * lookup and a directory listing per {@link #list}, fine for tens of engines.
 */
public final class FileDirectory implements Directory {
    private static final String SUFFIX = ".json";
    private final Path folder;
    private final Clock clock;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bad = new AtomicLong();

    /** A directory in {@code folder} (created if missing) on the system clock. */
    public FileDirectory(Path folder) {
        this(folder, Clock.systemUTC());
    }

    /** For tests: with an injected clock. */
    public FileDirectory(Path folder, Clock clock) {
        this.folder = folder.toAbsolutePath();
        this.clock = clock;
        try {
            Files.createDirectories(this.folder);
        } catch (IOException e) {
            throw new DirectoryException(url(), "cannot create the folder: " + e.getMessage(), e);
        }
    }

    @Override
    public String url() {
        return "file:" + folder;
    }

    @Override
    public void publish(PeerRecord record, Duration lease) {
        requests.incrementAndGet();
        long expires = clock.millis() + lease.toMillis();
        Path target = folder.resolve(record.name() + SUFFIX);
        Path tmp = folder.resolve("." + record.name() + "." + ThreadLocalRandom.current().nextLong(1L << 62) + ".tmp");
        try {
            Files.writeString(tmp, expires + "\n" + record.toJson() + "\n", StandardCharsets.UTF_8);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // best effort
            }
            throw new DirectoryException(url(), "cannot publish " + record.name() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<PeerRecord> lookup(String name) {
        PeerRecord.checkName(name);
        requests.incrementAndGet();
        return Optional.ofNullable(read(folder.resolve(name + SUFFIX), false));
    }

    @Override
    public List<PeerRecord> list() {
        requests.incrementAndGet();
        List<PeerRecord> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, "*" + SUFFIX)) {
            for (Path f : files) {
                PeerRecord r = read(f, true);
                if (r != null) {
                    out.add(r);
                }
            }
        } catch (IOException e) {
            throw new DirectoryException(url(), "cannot list the folder: " + e.getMessage(), e);
        }
        out.sort(Comparator.comparing(PeerRecord::name));
        return out;
    }

    @Override
    public void unpublish(PeerRecord record) {
        requests.incrementAndGet();
        Path f = folder.resolve(record.name() + SUFFIX);
        PeerRecord current = read(f, false);
        if (current != null && current.incarnation() == record.incarnation()) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                throw new DirectoryException(url(), "cannot unpublish " + record.name() + ": " + e.getMessage(), e);
            }
        }
    }

    /** The live record in {@code f}, or null (missing, expired — deleted when {@code sweep} — or bad: counted). */
    private PeerRecord read(Path f, boolean sweep) {
        String text;
        try {
            text = Files.readString(f, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new DirectoryException(url(), "cannot read " + f.getFileName() + ": " + e.getMessage(), e);
        }
        String[] lines = text.split("\n");
        long expires;
        PeerRecord r;
        try {
            if (lines.length < 2) {
                throw new IllegalArgumentException("not two lines");
            }
            expires = Long.parseLong(lines[0].trim());
            String file = f.getFileName().toString();
            r = PeerRecord.fromStored(lines[1], file.endsWith(SUFFIX)
                    ? file.substring(0, file.length() - SUFFIX.length()) : null);
        } catch (IllegalArgumentException e) {
            bad.incrementAndGet();
            return null;
        }
        if (expires <= clock.millis()) {
            if (sweep) {
                sweep(f, text);
            }
            return null;
        }
        return r;
    }

    /**
     * Removes an expired file without losing a record published over it meanwhile: moves it aside
     * atomically, deletes it if it is still the expired text, else puts it back (unless an even
     * newer one arrived).
     */
    private void sweep(Path f, String expiredText) {
        Path aside = folder.resolve("." + f.getFileName() + "." + ThreadLocalRandom.current().nextLong(1L << 62)
                + ".expired");
        try {
            Files.move(f, aside, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            return; // gone already, or replaced: nothing to sweep
        }
        try {
            if (Files.readString(aside, StandardCharsets.UTF_8).equals(expiredText)) {
                Files.deleteIfExists(aside);
            } else {
                try {
                    Files.move(aside, f); // a record published just now: back it goes
                } catch (java.nio.file.FileAlreadyExistsException newer) {
                    Files.deleteIfExists(aside);
                }
            }
        } catch (IOException ignored) {
            // best effort; a leftover ".expired" file is never read as a record
        }
    }

    @Override
    public long requests() {
        return requests.get();
    }

    @Override
    public long badRecords() {
        return bad.get();
    }

    @Override
    public void close() {
        // nothing held
    }

    @Override
    public String toString() {
        return url();
    }
}
