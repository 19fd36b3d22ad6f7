package io.slime4j.engine.directory;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What an engine publishes about itself: its name, its incarnation (a random number drawn when
 * the engine starts: a restarted process under the same name has another), the TCP address of its
 * bootstrap listener ({@code host:port}), its host id, and its registered regions (name to length).
 * Read from a directory it is untrusted input: {@link #fromJson} refuses anything malformed.
 *
 * @param name        the engine's name: 1..128 of {@code A-Z a-z 0-9 . _ -}
 * @param incarnation nonzero
 * @param bootstrap   {@code host:port} (IPv6 hosts in brackets)
 * @param hostId      the host the engine runs on (informational)
 * @param regions     region name to length in bytes
 */
public record PeerRecord(String name, long incarnation, String bootstrap, String hostId, Map<String, Long> regions) {
    /** The record format written and read. */
    public static final int FORMAT = 1;
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
        return new PeerRecord(string(o, "name"), inc.longValue(), string(o, "bootstrap"), string(o, "hostId"), regions);
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
