package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.inproc.InprocWire;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a multi-rail endpoint tells its peer, and the checks on opening and connecting rails. */
@Timeout(60)
class RailsInfoTest {

    private static EndpointInfo twoRails() {
        Map<String, RegionInfo> regions = new LinkedHashMap<>();
        regions.put("kv", new RegionInfo(4096, 1 << 20, 77, AccessFlags.ALL, List.of(-5L)));
        QpInfo q = new QpInfo("inproc:a", 1, 2, 3);
        QpInfo r = new QpInfo("inproc:a2", 4, 5, 6);
        return new EndpointInfo("a", "inproc:a", 64, 256, List.of(q, r), q, q, regions, List.of("inproc:a", "inproc:a2"));
    }

    @Test
    void railsAndPerRailKeysSurviveJson() {
        EndpointInfo info = twoRails();
        String json = info.toJson();
        assertThat(json).contains("\"rails\":[\"inproc:a\",\"inproc:a2\"]").contains("\"railKeys\":[-5]");
        EndpointInfo back = EndpointInfo.fromJson(json);
        assertThat(back).isEqualTo(info);
        assertThat(back.regions().get("kv").remoteKey(1)).isEqualTo(-5);
        assertThat(back.regions().get("kv").remoteKey(0)).isEqualTo(77);
    }

    @Test
    void jsonWithoutRailsIsOneRailAndInconsistentKeysAreRefused() {
        EndpointInfo one = EndpointInfo.fromJson(twoRails().toJson().replace(",\"rails\":[\"inproc:a\",\"inproc:a2\"]", "")
                .replace(",\"railKeys\":[-5]", ""));
        assertThat(one.rails()).containsExactly("inproc:a");
        assertThatThrownBy(() -> EndpointInfo.fromJson(twoRails().toJson().replace(",\"railKeys\":[-5]", "")))
                .hasMessageContaining("keys for 1 rails, the endpoint has 2");
        assertThatThrownBy(() -> new RegionInfo(0, 1, 1, AccessFlags.ALL).remoteKey(1)).hasMessageContaining("rail 1");
    }

    @Test
    void openingAndConnectingCheckTheRails() {
        try (InprocWire wire = new InprocWire();
             SoftDevice d1 = SoftDevice.open(wire, "r1", SoftConfig.builder().name("r1").build());
             SoftDevice d2 = SoftDevice.open(wire, "r2", SoftConfig.builder().name("r2").build());
             SoftDevice d3 = SoftDevice.open(wire, "r3", SoftConfig.builder().name("r3").build())) {
            EndpointConfig c = EndpointConfig.builder().qps(2).build();
            assertThatThrownBy(() -> RdmaEndpoint.open(List.<VerbsDevice>of(), c)).hasMessageContaining("at least one");
            assertThatThrownBy(() -> RdmaEndpoint.open(java.util.Arrays.asList(d1, d1), c))
                    .hasMessageContaining("same device");
            try (RdmaEndpoint two = RdmaEndpoint.open(List.of(d1, d2), c);
                 RdmaEndpoint one = RdmaEndpoint.open(d3, c)) {
                assertThat(two.info().rails()).containsExactly(d1.address(), d2.address());
                assertThatThrownBy(() -> one.connect(two.info())).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("1 rails but peer").hasMessageContaining("has 2");
            }
        }
    }
}
