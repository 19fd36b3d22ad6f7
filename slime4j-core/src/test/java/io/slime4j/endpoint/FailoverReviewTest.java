package io.slime4j.endpoint;

import static io.slime4j.endpoint.Checks.success;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.WcStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Failover cases found in review: re-issue on another lane is for requests whose lane failed
 * (retries exhausted, or flushed behind such a failure), not for a request that failed on its own
 * merits — that one would fail the same way on every lane and take each lane down in turn.
 */
@Timeout(120)
class FailoverReviewTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** The peer's info with one more region, "ghost": the memory of "kv" under a key the peer never issued. */
    private static EndpointInfo withGhostRegion(EndpointInfo peer) {
        Map<String, RegionInfo> regions = new LinkedHashMap<>(peer.regions());
        RegionInfo kv = peer.regions().get("kv");
        regions.put("ghost", new RegionInfo(kv.address(), kv.length(), kv.remoteKey() ^ 0x5A5A5A5AL, kv.accessFlags(),
                kv.railKeys()));
        return new EndpointInfo(peer.name(), peer.address(), peer.messageSlots(), peer.immWindow(), peer.ioQps(),
                peer.metaQp(), peer.dataQp(), regions, peer.rails());
    }

    @Test
    void aRequestTheRemoteRefusesFailsItsOpWithoutTakingEveryLaneDown() throws Exception {
        QpConfig impatient = QpConfig.builder().ackTimeout(Duration.ofMillis(20)).retryCount(1).build();
        QpSelector lane1 = (type, id, qps) -> type.isMessagePath() ? 0 : 1; // one-sided traffic on lane 1
        EndpointConfig c = EndpointConfig.builder().qps(2).qpTemplate(impatient).selector((q, cfg) -> lane1).build();
        try (RailPair p = RailPair.inproc(1, c, 1 << 20)) {
            p.a.updatePeer(withGhostRegion(p.b.info()));
            TransferFuture bad = p.a.write("kv", 0, "ghost", 0, 4096);
            assertThat(bad.get(WAIT)).isEqualTo(TransferStatus.FAILED);
            assertThat(bad.wcStatus()).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(p.a.router().isDead(1)).as("the lane that failed the request (its queue pair is in ERR)").isTrue();
            assertThat(p.a.router().isDead(0)).as("the refused request was not re-issued onto lane 0").isFalse();
            assertThat(p.a.stats().reissued.sum()).isZero();
            Patterns.fill(p.kvA, 0, 4096, 3);
            success(p.a.write("kv", 0, "kv", 0, 4096), WAIT); // the endpoint goes on, on lane 0
            assertThat(Patterns.mismatch(p.kvB, 0, 4096, 3)).isEqualTo(-1);
            p.assertClean();
        }
    }
}
