package io.slime4j.engine.directory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The host identity and transports of a record: written, read back, absent in older records, checked. */
class PeerRecordTransportsTest {
    private static final String HOST = "0f1e2d3c-aaaa-bbbb-cccc-111122223333/4026531836/4026531840";

    @Test
    void aRecordCarriesItsHostIdentityAndTransportsThroughJson() {
        PeerRecord r = new PeerRecord("A", 5, "127.0.0.1:4000", "box", Map.of("kv", 64L), HOST,
                List.of("shm", "network"));
        String json = r.toJson();
        assertThat(json).contains("\"host\":\"" + HOST + "\"").contains("\"transports\":[\"shm\",\"network\"]");
        PeerRecord back = PeerRecord.fromJson(json);
        assertThat(back).isEqualTo(r);
        assertThat(back.acceptsShm()).isTrue();
        assertThat(back.withRegions(Map.of()).host()).isEqualTo(HOST);
    }

    @Test
    void aRecordOfAnEngineThatPredatesTransportsStatesNoHostAndOffersOnlyTheNetwork() {
        PeerRecord old = PeerRecord.fromJson("{\"format\":1,\"name\":\"A\",\"incarnation\":5,"
                + "\"bootstrap\":\"127.0.0.1:4000\",\"hostId\":\"box\",\"regions\":{}}");
        assertThat(old.host()).isEmpty();
        assertThat(old.transports()).containsExactly("network");
        assertThat(old.acceptsShm()).isFalse();
        assertThat(new PeerRecord("A", 5, "127.0.0.1:4000", "box", Map.of())).isEqualTo(old);
    }

    @Test
    void unknownOrMistypedTransportsAreRefused() {
        assertThatThrownBy(() -> PeerRecord.fromJson("{\"format\":1,\"name\":\"A\",\"incarnation\":5,"
                + "\"bootstrap\":\"127.0.0.1:4000\",\"hostId\":\"box\",\"regions\":{},\"transports\":[\"rdma\"]}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("transports are network and shm, was rdma");
        assertThatThrownBy(() -> PeerRecord.fromJson("{\"format\":1,\"name\":\"A\",\"incarnation\":5,"
                + "\"bootstrap\":\"127.0.0.1:4000\",\"hostId\":\"box\",\"regions\":{},\"transports\":\"shm\"}"))
                .hasMessageContaining("'transports' must be an array");
        assertThatThrownBy(() -> PeerRecord.fromJson("{\"format\":1,\"name\":\"A\",\"incarnation\":5,"
                + "\"bootstrap\":\"127.0.0.1:4000\",\"hostId\":\"box\",\"regions\":{},\"host\":7}"))
                .hasMessageContaining("'host' must be a string");
    }
}
