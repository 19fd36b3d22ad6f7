package io.slime4j.engine.directory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Redis and etcd directories against real servers started by the test. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DirectoryBackendsTest {
    private static PeerRecord rec(String name, long inc) {
        return new PeerRecord(name, inc, "127.0.0.1:4000", "host-1", Map.of("kv", 4096L));
    }

    private static void contract(Directory dir) throws Exception {
        dir.publish(rec("A", 1), Duration.ofSeconds(2));
        dir.publish(rec("B", 5), Duration.ofSeconds(30));
        assertThat(dir.lookup("A")).contains(rec("A", 1));
        assertThat(dir.lookup("nobody")).isEmpty();
        assertThat(dir.list()).containsExactly(rec("A", 1), rec("B", 5));
        dir.unpublish(rec("B", 4)); // another incarnation: stays
        assertThat(dir.lookup("B")).isPresent();
        dir.unpublish(rec("B", 5));
        assertThat(dir.lookup("B")).isEmpty();
        dir.publish(rec("A", 1), Duration.ofSeconds(2)); // heartbeat
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (dir.lookup("A").isPresent()) {
            assertThat(System.nanoTime()).as("A expires within its lease").isLessThan(until);
            Thread.sleep(100);
        }
        assertThat(dir.requests()).isGreaterThan(5);
    }

    @Test
    void redisKeepsRecordsForTheirLeaseOnlyAndSkipsBadOnes() throws Exception {
        try (ServerProcess redis = ServerProcess.redis();
             Directory dir = Directories.open(redis.url())) {
            contract(dir);
            try (var client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:" + redis.port());
                 var c = client.connect()) {
                c.sync().set(RedisDirectory.DEFAULT_PREFIX + "junk", "{not json");
                c.sync().set(RedisDirectory.DEFAULT_PREFIX + "liar", rec("someoneElse", 1).toJson());
            }
            dir.publish(rec("C", 3), Duration.ofSeconds(30));
            assertThat(dir.list()).containsExactly(rec("C", 3));
            assertThat(dir.badRecords()).isEqualTo(2);
        }
    }

    @Test
    void aRedisRestartLosesRecordsAndTheNextPublishPutsThemBack() throws Exception {
        try (ServerProcess redis = ServerProcess.redis();
             Directory dir = Directories.open(redis.url())) {
            dir.publish(rec("A", 1), Duration.ofSeconds(30));
            redis.kill();
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> dir.lookup("A")).isInstanceOf(DirectoryException.class)
                    .hasMessageContaining(redis.url());
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
            redis.start();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (true) { // Lettuce reconnects in the background
                try {
                    assertThat(dir.lookup("A")).isEmpty(); // lost with the server
                    break;
                } catch (DirectoryException e) {
                    assertThat(System.nanoTime()).isLessThan(until);
                    Thread.sleep(100);
                }
            }
            dir.publish(rec("A", 1), Duration.ofSeconds(30));
            assertThat(dir.lookup("A")).contains(rec("A", 1));
        }
    }

    @Test
    void etcdKeepsRecordsForTheirLeaseOnly() throws Exception {
        try (ServerProcess etcd = ServerProcess.etcd();
             Directory dir = Directories.open(etcd.url())) {
            contract(dir);
        }
    }

    @Test
    void anUnreachableDirectoryFailsWithItsUrl() throws Exception {
        int port = ServerProcess.freePort();
        try (Directory redis = Directories.open("redis://127.0.0.1:" + port);
             Directory etcd = Directories.open("etcd://127.0.0.1:" + port)) {
            assertThatThrownBy(() -> redis.lookup("A")).isInstanceOf(DirectoryException.class)
                    .hasMessageContaining("redis://127.0.0.1:" + port);
            assertThatThrownBy(etcd::list).isInstanceOf(DirectoryException.class)
                    .hasMessageContaining("etcd://127.0.0.1:" + port);
        }
        assertThatThrownBy(() -> Directories.open("zookeeper://h:1")).hasMessageContaining("unknown scheme");
        assertThatThrownBy(() -> Directories.open("redis://nohostport")).hasMessageContaining("host and a port");
    }
}
