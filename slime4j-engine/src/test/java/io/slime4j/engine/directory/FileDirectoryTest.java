package io.slime4j.engine.directory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileDirectoryTest {
    @TempDir
    Path folder;

    /** A clock the test moves. */
    private static final class ManualClock extends Clock {
        long millis = 1_000_000;

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }
    }

    private static PeerRecord rec(String name, long inc) {
        return new PeerRecord(name, inc, "127.0.0.1:4000", "host-1", Map.of("kv", 4096L));
    }

    @Test
    void aRecordLivesForItsLeaseAndAHeartbeatExtendsIt() {
        ManualClock clock = new ManualClock();
        FileDirectory dir = new FileDirectory(folder, clock);
        dir.publish(rec("A", 1), Duration.ofSeconds(10));
        assertThat(dir.lookup("A")).contains(rec("A", 1));
        clock.millis += 9_000;
        dir.publish(rec("A", 1), Duration.ofSeconds(10)); // heartbeat
        clock.millis += 9_000;
        assertThat(dir.list()).containsExactly(rec("A", 1));
        clock.millis += 1_000;
        assertThat(dir.lookup("A")).isEmpty();
        assertThat(dir.list()).isEmpty();
        assertThat(folder.resolve("A.json")).doesNotExist(); // swept
    }

    @Test
    void unpublishRemovesOnlyTheSameIncarnation() {
        FileDirectory dir = new FileDirectory(folder);
        dir.publish(rec("A", 2), Duration.ofSeconds(10));
        dir.unpublish(rec("A", 1));
        assertThat(dir.lookup("A")).contains(rec("A", 2));
        dir.unpublish(rec("A", 2));
        assertThat(dir.lookup("A")).isEmpty();
    }

    @Test
    void badRecordsAreSkippedAndCounted() throws Exception {
        FileDirectory dir = new FileDirectory(folder);
        dir.publish(rec("good", 1), Duration.ofSeconds(10));
        Files.writeString(folder.resolve("junk.json"), "not a lease\n{oops");
        Files.writeString(folder.resolve("other.json"), Long.MAX_VALUE + "\n" + rec("someone", 1).toJson());
        Files.writeString(folder.resolve("old.json"), Long.MAX_VALUE + "\n{\"format\":0,\"name\":\"old\"}");
        assertThat(dir.list()).containsExactly(rec("good", 1));
        assertThat(dir.badRecords()).isEqualTo(3);
        assertThat(dir.requests()).isEqualTo(2);
    }

    @Test
    void recordsRefuseBadNamesAndForeignFormats() {
        assertThatThrownBy(() -> rec("a/b", 1)).hasMessageContaining("engine name");
        assertThatThrownBy(() -> rec("a", 0)).hasMessageContaining("incarnation");
        assertThatThrownBy(() -> new PeerRecord("a", 1, "nohost", "", Map.of())).hasMessageContaining("host:port");
        assertThatThrownBy(() -> PeerRecord.fromJson("{\"name\":\"a\"}")).hasMessageContaining("format");
        assertThatThrownBy(() -> PeerRecord.fromJson("[")).hasMessageContaining("malformed");
        assertThat(PeerRecord.fromJson(rec("x", Long.MIN_VALUE).toJson())).isEqualTo(rec("x", Long.MIN_VALUE));
    }

    @Test
    void aStoredRecordIsReadOnlyUnderItsOwnName() {
        String json = rec("x", 7).toJson();
        assertThat(PeerRecord.fromStored(json, "x")).isEqualTo(rec("x", 7));
        assertThatThrownBy(() -> PeerRecord.fromStored(json, "y")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stored under y");
        assertThatThrownBy(() -> PeerRecord.fromStored(json, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PeerRecord.fromStored("{oops", "x")).hasMessageContaining("malformed");
    }
}
