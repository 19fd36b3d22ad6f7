package io.slime4j.engine.directory;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A directory in Redis, through Lettuce: one string key per engine, {@code <prefix><name>}, set
 * with a TTL of the lease ({@code SET key json PX lease}); each heartbeat sets it again, which both
 * refreshes the TTL and puts the record back if the server lost it (a restart without persistence).
 * {@link #list} scans {@code <prefix>*} and reads the keys with {@code MGET}. Every command is bounded
 * by the timeout; while the server is unreachable commands fail at once (Lettuce rejects them while
 * it reconnects in the background) with a {@link DirectoryException} naming {@code redis://host:port}.
 * All instances in a process share one small set of Lettuce threads (2 I/O, 1 computation).
 */
public final class RedisDirectory implements Directory {
    /** The default key prefix. */
    public static final String DEFAULT_PREFIX = "slime4j:engine:";
    private static final Object SHARED_LOCK = new Object();
    private static ClientResources shared;
    private static int users;

    private final String url;
    private final String prefix;
    private final RedisClient client;
    private final Duration timeout;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bad = new AtomicLong();
    private StatefulRedisConnection<String, String> connection;
    private boolean closed;

    /** A directory on the Redis server at {@code host:port}, keys under {@code prefix}, commands bounded by {@code timeout}. */
    public RedisDirectory(String host, int port, String prefix, Duration timeout) {
        this.url = "redis://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        this.prefix = prefix;
        this.timeout = timeout;
        RedisURI uri = RedisURI.builder().withHost(host).withPort(port).withTimeout(timeout).build();
        this.client = RedisClient.create(acquire(), uri);
        client.setOptions(ClientOptions.builder().autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .timeoutOptions(TimeoutOptions.enabled(timeout)).build());
    }

    private static ClientResources acquire() {
        synchronized (SHARED_LOCK) {
            if (shared == null) {
                shared = DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(1).build();
            }
            users++;
            return shared;
        }
    }

    private static void release() {
        synchronized (SHARED_LOCK) {
            if (--users == 0) {
                shared.shutdown(0, 2, TimeUnit.SECONDS);
                shared = null;
            }
        }
    }

    @Override
    public String url() {
        return url;
    }

    private synchronized RedisCommands<String, String> commands() {
        if (closed) {
            throw new DirectoryException(url, "closed", null);
        }
        if (connection == null) {
            connection = client.connect(); // throws while the server is down; tried again on the next call
        }
        return connection.sync();
    }

    private <T> T call(String what, Supplier<T> command) {
        requests.incrementAndGet();
        try {
            return command.get();
        } catch (DirectoryException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DirectoryException(url, what + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void publish(PeerRecord record, Duration lease) {
        call("publishing " + record.name(), () -> commands().set(prefix + record.name(), record.toJson(),
                SetArgs.Builder.px(lease.toMillis())));
    }

    @Override
    public Optional<PeerRecord> lookup(String name) {
        PeerRecord.checkName(name);
        String json = call("looking up " + name, () -> commands().get(prefix + name));
        return Optional.ofNullable(parse(json, name));
    }

    @Override
    public List<PeerRecord> list() {
        return call("listing", () -> {
            RedisCommands<String, String> c = commands();
            List<String> keys = new ArrayList<>();
            ScanIterator<String> it = ScanIterator.scan(c, ScanArgs.Builder.matches(prefix + "*").limit(500));
            while (it.hasNext()) {
                keys.add(it.next());
            }
            List<PeerRecord> out = new ArrayList<>();
            for (int i = 0; i < keys.size(); i += 500) {
                for (KeyValue<String, String> kv : c.mget(keys.subList(i, Math.min(keys.size(), i + 500))
                        .toArray(String[]::new))) {
                    if (kv.hasValue()) {
                        PeerRecord r = parse(kv.getValue(), kv.getKey().substring(prefix.length()));
                        if (r != null) {
                            out.add(r);
                        }
                    }
                }
            }
            out.sort(Comparator.comparing(PeerRecord::name));
            return out;
        });
    }

    /** The record, or null when absent or bad (counted). */
    private PeerRecord parse(String json, String name) {
        if (json == null) {
            return null;
        }
        try {
            return PeerRecord.fromStored(json, name);
        } catch (IllegalArgumentException e) {
            bad.incrementAndGet();
            return null;
        }
    }

    @Override
    public void unpublish(PeerRecord record) {
        // compare and delete in one step on the server, so a newer incarnation's record is never removed
        String script = "local v = redis.call('GET', KEYS[1]) "
                + "if v and string.find(v, ARGV[1], 1, true) then return redis.call('DEL', KEYS[1]) end return 0";
        call("unpublishing " + record.name(), () -> commands().eval(script, io.lettuce.core.ScriptOutputType.INTEGER,
                new String[] {prefix + record.name()}, "\"incarnation\":" + record.incarnation() + ","));
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
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (connection != null) {
                connection.close();
            }
        }
        client.shutdown(Duration.ZERO, timeout);
        release();
    }

    @Override
    public String toString() {
        return url;
    }
}
