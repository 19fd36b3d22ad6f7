package io.slime4j.engine.directory;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What an engine publishes about itself: its name, its incarnation (a random number drawn when
 * the engine starts: a restarted process under the same name has another), the TCP address of its
 * bootstrap listener ({@code host:port}), its host id, its host identity and transports (which host
 * and namespaces it runs in, and whether it takes same-host shared-memory connections: see
 * docs/ENGINE.md, "Transports"), and its registered regions (name to length).
 * Read from a directory it is untrusted input: {@link #fromJson} refuses anything malformed.
 *
 * @param name        the engine's name: 1..128 of {@code A-Z a-z 0-9 . _ -}
 * @param incarnation nonzero
 * @param bootstrap   {@code host:port} (IPv6 hosts in brackets)
 * @param hostId      the host the engine runs on (informational)
 * @param regions     region name to length in bytes
 * @param host        the engine's host identity ({@code BOOTID/PIDNS/MNTNS}, see
 *                    {@code io.slime4j.shm.HostIdentity}); empty when it does not say (an older engine)
 * @param transports  the transports it accepts connections on, of {@link #NETWORK} and {@link #SHM};
 *                    a record written before transports existed reads as {@code [network]}
 */
public record PeerRecord(String name, long incarnation, String bootstrap, String hostId, Map<String, Long> regions,
                         String host, List<String> transports) {
    /** The record format written and read. */
    public static final int FORMAT = 1;
    /** The transport over the network (the engine's UDP rails). */
    public static final String NETWORK = "network";
    /** The same-host shared-memory transport. */
    public static final String SHM = "shm";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");

    /** Validates. */
    public PeerRecord {
        checkName(name);
        if (incarnation == 0) {
            throw new IllegalArgumentException("record of " + name + ": incarnation must not be 0");
        }
        if (bootstrap == null || bootstrap.lastIndexOf(':') <= 0) {
            throw new IllegalArgumentException("record of " + name + ": bootstrap must be host:port, was " + bootstrap);
        }
        port(bootstrap);
        hostId = hostId == null ? "" : hostId;
        regions = regions == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(regions));
        host = host == null ? "" : host;
        transports = transports == null || transports.isEmpty() ? List.of(NETWORK) : List.copyOf(transports);
        for (String t : transports) {
            if (!NETWORK.equals(t) && !SHM.equals(t)) {
                throw new IllegalArgumentException("record of " + name + ": transports are network and shm, was " + t);
            }
        }
    }

    /** A record that states no host identity and offers only the network (as records written before transports). */
    public PeerRecord(String name, long incarnation, String bootstrap, String hostId, Map<String, Long> regions) {
        this(name, incarnation, bootstrap, hostId, regions, "", List.of(NETWORK));
    }

    /** This record with other regions. */
    public PeerRecord withRegions(Map<String, Long> newRegions) {
        return new PeerRecord(name, incarnation, bootstrap, hostId, newRegions, host, transports);
    }

    /** Whether the engine takes shared-memory connections. */
    public boolean acceptsShm() {
        return transports.contains(SHM);
    }

    /**
     * Checks an engine name.
     *
     * @throws IllegalArgumentException if it is not 1..128 of {@code A-Z a-z 0-9 . _ -}
     */
    public static String checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("an engine name is 1..128 of A-Z a-z 0-9 . _ -, was '" + name + "'");
        }
        return name;
    }

    /** The bootstrap host (without brackets). */
    public String bootstrapHost() {
        String h = bootstrap.substring(0, bootstrap.lastIndexOf(':'));
        return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }

    /** The bootstrap port. */
    public int bootstrapPort() {
        return port(bootstrap);
    }

    private static int port(String hostPort) {
        try {
            int p = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
            if (p < 1 || p > 65535) {
                throw new NumberFormatException();
            }
            return p;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bootstrap must be host:port with a port 1..65535, was " + hostPort);
        }
    }

    /** One line of JSON. */
    public String toJson() {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("format", FORMAT);
        o.put("name", name);
        o.put("incarnation", incarnation);
        o.put("bootstrap", bootstrap);
        o.put("hostId", hostId);
        o.put("regions", regions);
        o.put("host", host);
        o.put("transports", transports);
        try {
            return JSON.std.asString(o);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Parses a record.
     *
     * @throws IllegalArgumentException for malformed JSON, another format, a missing or mistyped field
     */
    public static PeerRecord fromJson(String json) {
        Map<String, Object> o;
        try {
            o = JSON.std.mapFrom(json);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("malformed peer record: " + e.getMessage(), e);
        }
        if (o == null || !(o.get("format") instanceof Number f) || f.longValue() != FORMAT) {
            throw new IllegalArgumentException("peer record of format " + (o == null ? null : o.get("format"))
                    + " is not read (expected " + FORMAT + ")");
        }
        Map<String, Long> regions = new LinkedHashMap<>();
        if (!(o.get("regions") instanceof Map<?, ?> rs)) {
            throw new IllegalArgumentException("peer record: 'regions' must be an object");
        }
        for (Map.Entry<?, ?> e : rs.entrySet()) {
            if (!(e.getValue() instanceof Number n) || n.longValue() < 0) {
                throw new IllegalArgumentException("peer record: region length must be a non-negative integer");
            }
            regions.put((String) e.getKey(), n.longValue());
        }
        if (!(o.get("incarnation") instanceof Number inc) || inc instanceof Double) {
            throw new IllegalArgumentException("peer record: 'incarnation' must be an integer");
        }
        String host = "";
        if (o.get("host") != null) {
            host = string(o, "host");
        }
        List<String> transports = new ArrayList<>();
        if (o.get("transports") != null) {
            if (!(o.get("transports") instanceof List<?> ts)) {
                throw new IllegalArgumentException("peer record: 'transports' must be an array");
            }
            for (Object t : ts) {
                if (!(t instanceof String ts1)) {
                    throw new IllegalArgumentException("peer record: 'transports' must hold strings");
                }
                transports.add(ts1);
            }
        }
        return new PeerRecord(string(o, "name"), inc.longValue(), string(o, "bootstrap"), string(o, "hostId"), regions,
                host, transports);
    }

    /**
     * Parses a record read from a directory under {@code storedName} (the name its key or file
     * gives): the one decoding every {@link Directory} backend uses.
     *
     * @throws IllegalArgumentException as {@link #fromJson}, or if the record's name is not
     *                                  {@code storedName} (null: the key did not name a record)
     */
    public static PeerRecord fromStored(String json, String storedName) {
        PeerRecord r = fromJson(json);
        if (!r.name().equals(storedName)) {
            throw new IllegalArgumentException("the record of " + r.name() + " is stored under " + storedName);
        }
        return r;
    }

    private static String string(Map<String, Object> o, String key) {
        if (!(o.get(key) instanceof String s)) {
            throw new IllegalArgumentException("peer record: '" + key + "' must be a string");
        }
        return s;
    }
}
