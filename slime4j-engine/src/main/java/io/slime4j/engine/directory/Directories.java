package io.slime4j.engine.directory;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Opens a directory from its URL: {@code redis://HOST:PORT}, {@code etcd://HOST:PORT} (the client
 * port), or the embedded one, {@code file:/PATH} (a folder of lease files on this host); an optional
 * path names the key prefix for Redis and etcd ({@code redis://h:6379/myprefix:}).
 */
public final class Directories {
    /** Every request's bound. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private Directories() {
    }

    /** The embedded default: {@code file:<java.io.tmpdir>/slime4j-directory}. */
    public static String defaultUrl() {
        return "file:" + Path.of(System.getProperty("java.io.tmpdir"), "slime4j-directory");
    }

    /**
     * Opens the directory {@code url} names.
     *
     * @throws IllegalArgumentException for another scheme or a malformed URL, saying what was wrong
     */
    public static Directory open(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("a directory URL is redis://HOST:PORT, etcd://HOST:PORT or file:/PATH");
        }
        if (url.startsWith("file:")) {
            String path = url.substring("file:".length());
            if (path.isEmpty()) {
                throw new IllegalArgumentException("directory URL " + url + " names no folder (file:/PATH)");
            }
            return new FileDirectory(Path.of(path.startsWith("//") ? path.substring(2) : path));
        }
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("directory URL " + url + " is malformed: " + e.getMessage(), e);
        }
        String scheme = uri.getScheme();
        if (uri.getHost() == null || uri.getPort() < 1) {
            throw new IllegalArgumentException("directory URL " + url + " needs a host and a port (" + scheme
                    + "://HOST:PORT)");
        }
        String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1)
                : uri.getHost();
        String path = uri.getPath() == null || uri.getPath().length() <= 1 ? null : uri.getPath().substring(1);
        return switch (scheme == null ? "" : scheme) {
            case "redis" -> new RedisDirectory(host, uri.getPort(), path == null ? RedisDirectory.DEFAULT_PREFIX : path,
                    DEFAULT_TIMEOUT);
            case "etcd" -> new EtcdDirectory(host, uri.getPort(), path == null ? EtcdDirectory.DEFAULT_PREFIX : path,
                    DEFAULT_TIMEOUT);
            default -> throw new IllegalArgumentException("directory URL " + url + ": unknown scheme '" + scheme
                    + "' (redis://HOST:PORT, etcd://HOST:PORT or file:/PATH)");
        };
    }
}
