package io.slime4j.shm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which host (and which view of it) a process runs on, as far as the shm device cares: the kernel's
 * boot id ({@code /proc/sys/kernel/random/boot_id}, new at every boot, different on every machine
 * and VM) and the inodes of the process's PID and mount namespaces (a peer's address names a PID
 * and is opened through {@code /proc}, so both must be the same). Two processes with equal
 * identities can reach each other with an {@link ShmDevice}; the text form travels in endpoint
 * descriptions ({@link #toText()}, {@link #parse}).
 *
 * @param bootId         the boot id
 * @param pidNamespace   inode of {@code /proc/self/ns/pid}
 * @param mountNamespace inode of {@code /proc/self/ns/mnt}
 */
public record HostIdentity(String bootId, long pidNamespace, long mountNamespace) {
    public HostIdentity {
        if (bootId == null || bootId.isBlank() || bootId.contains("/")) {
            throw new IllegalArgumentException("boot id must be non-blank and free of '/', was '" + bootId + "'");
        }
    }

    /** This process's identity, read from {@code /proc}. */
    public static HostIdentity current() {
        return read(Path.of("/proc"));
    }

    /** The identity as read from a {@code /proc} tree at {@code proc} (tests pass a fake one). */
    static HostIdentity read(Path proc) {
        try {
            String boot = Files.readString(proc.resolve("sys/kernel/random/boot_id")).strip();
            return new HostIdentity(boot, namespace(proc, "pid"), namespace(proc, "mnt"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the host identity from " + proc, e);
        }
    }

    private static long namespace(Path proc, String kind) throws IOException {
        String link = Files.readSymbolicLink(proc.resolve("self/ns/" + kind)).toString(); // e.g. pid:[4026531836]
        int open = link.indexOf('[');
        int close = link.indexOf(']');
        if (open < 0 || close < open) {
            throw new IOException("unexpected namespace link " + link);
        }
        return Long.parseLong(link.substring(open + 1, close));
    }

    /** Whether a process of identity {@code other} can be reached with an shm device from here. */
    public boolean sameHostAs(HostIdentity other) {
        return equals(other);
    }

    /** {@code BOOTID/PIDNS/MNTNS}. */
    public String toText() {
        return bootId + "/" + pidNamespace + "/" + mountNamespace;
    }

    /**
     * Parses {@link #toText()}.
     *
     * @throws IllegalArgumentException naming the text if it is malformed
     */
    public static HostIdentity parse(String text) {
        String[] p = text == null ? new String[0] : text.split("/");
        if (p.length != 3) {
            throw new IllegalArgumentException("host identity must be BOOTID/PIDNS/MNTNS, was '" + text + "'");
        }
        try {
            return new HostIdentity(p[0], Long.parseLong(p[1]), Long.parseLong(p[2]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("host identity must be BOOTID/PIDNS/MNTNS, was '" + text + "'", e);
        }
    }
}
