package io.slime4j.engine.directory;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A directory in etcd (v3), through etcd's JSON gateway ({@code /v3/kv/*}, {@code /v3/lease/*})
 * over {@code java.net.http}: one key per engine, {@code <prefix><name>}, attached to a lease of
 * the record's TTL. The heartbeat renews the lease ({@code lease/keepalive}); when etcd answers
 * that the lease is gone (it expired, or the data was lost), a new lease is granted and the
 * record put again. Chosen over jetcd because jetcd needs gRPC, Netty, protobuf and Vert.x, none of
 * which this build otherwise uses, while the gateway needs only the JDK. Every request is bounded
 * by the timeout and fails with a {@link DirectoryException} naming {@code etcd://host:port}.
 */
public final class EtcdDirectory implements Directory {
    /** The default key prefix. */
    public static final String DEFAULT_PREFIX = "slime4j/engine/";
    private final String url;
    private final URI base;
    private final String prefix;
    private final Duration timeout;
    private final HttpClient http;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bad = new AtomicLong();
    /** Name to the lease and the JSON last put under it. */
    private final Map<String, Lease> leases = new ConcurrentHashMap<>();

    private record Lease(long id, String json) {
    }

    /** A directory on the etcd at {@code host:port} (its client port), keys under {@code prefix}. */
    public EtcdDirectory(String host, int port, String prefix, Duration timeout) {
        String h = host.contains(":") ? "[" + host + "]" : host;
        this.url = "etcd://" + h + ":" + port;
        this.base = URI.create("http://" + h + ":" + port);
        this.prefix = prefix;
        this.timeout = timeout;
        // virtual threads for the client's work: its default executor would grow a platform thread per
        // concurrent request; one selector thread remains
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1)
                .executor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()).build();
    }

    @Override
    public String url() {
        return url;
    }

    private Map<String, Object> post(String path, Map<String, Object> body, String what) {
        requests.incrementAndGet();
        try {
            HttpRequest req = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.std.asString(body))).build();
            HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
            Map<String, Object> out = resp.body().isBlank() ? Map.of() : JSON.std.mapFrom(resp.body());
            if (resp.statusCode() / 100 != 2) {
                throw new DirectoryException(url, what + " failed: HTTP " + resp.statusCode() + " " + out.get("message")
                        + (out.get("error") != null ? " " + out.get("error") : ""), null);
            }
            return out;
        } catch (IOException e) {
            throw new DirectoryException(url, what + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DirectoryException(url, what + " interrupted", e);
        }
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String unb64(Object s) {
        return new String(Base64.getDecoder().decode((String) s), StandardCharsets.UTF_8);
    }

    @Override
    public void publish(PeerRecord record, Duration lease) {
        String json = record.toJson();
        Lease held = leases.get(record.name());
        if (held != null) {
            Map<String, Object> r = post("/v3/lease/keepalive", Map.of("ID", Long.toString(held.id())),
                    "renewing the lease of " + record.name());
            Object result = r.get("result");
            boolean alive = result instanceof Map<?, ?> m && m.get("TTL") != null
                    && Long.parseLong(m.get("TTL").toString()) > 0;
            if (alive && held.json().equals(json)) {
                return;
            }
            if (!alive) {
                held = null;
            }
        }
        if (held == null) {
            long ttl = Math.max(1, (lease.toMillis() + 999) / 1000);
            Map<String, Object> g = post("/v3/lease/grant", Map.of("TTL", Long.toString(ttl)),
                    "granting a lease to " + record.name());
            held = new Lease(Long.parseLong(g.get("ID").toString()), json);
        }
        Map<String, Object> put = new LinkedHashMap<>();
        put.put("key", b64(prefix + record.name()));
        put.put("value", b64(json));
        put.put("lease", Long.toString(held.id()));
        post("/v3/kv/put", put, "publishing " + record.name());
        leases.put(record.name(), new Lease(held.id(), json));
    }

    @Override
    public Optional<PeerRecord> lookup(String name) {
        PeerRecord.checkName(name);
        List<PeerRecord> rs = range(Map.of("key", b64(prefix + name)), "looking up " + name);
        return rs.isEmpty() ? Optional.empty() : Optional.of(rs.getFirst());
    }

    @Override
    public List<PeerRecord> list() {
        byte[] end = prefix.getBytes(StandardCharsets.UTF_8);
        end[end.length - 1]++;
        List<PeerRecord> out = range(Map.of("key", b64(prefix),
                "range_end", Base64.getEncoder().encodeToString(end)), "listing");
        out.sort(Comparator.comparing(PeerRecord::name));
        return out;
    }

    private List<PeerRecord> range(Map<String, Object> body, String what) {
        Map<String, Object> r = post("/v3/kv/range", body, what);
        List<PeerRecord> out = new ArrayList<>();
        Object found = r.get("kvs");
        List<?> kvs = found instanceof List<?> l ? l : found instanceof Object[] a ? List.of(a) : List.of();
        {
            for (Object o : kvs) {
                try {
                    Map<?, ?> kv = (Map<?, ?>) o;
                    String key = unb64(kv.get("key"));
                    out.add(PeerRecord.fromStored(unb64(kv.get("value")),
                            key.startsWith(prefix) ? key.substring(prefix.length()) : null));
                } catch (RuntimeException e) {
                    bad.incrementAndGet();
                }
            }
        }
        return out;
    }

    @Override
    public void unpublish(PeerRecord record) {
        Optional<PeerRecord> current = lookup(record.name());
        if (current.isPresent() && current.get().incarnation() == record.incarnation()) {
            post("/v3/kv/deleterange", Map.of("key", b64(prefix + record.name())), "unpublishing " + record.name());
            Lease held = leases.remove(record.name());
            if (held != null) {
                post("/v3/lease/revoke", Map.of("ID", Long.toString(held.id())), "revoking the lease of "
                        + record.name());
            }
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
        http.close();
    }

    @Override
    public String toString() {
        return url;
    }
}
