package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.QpInfo;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndpointInfoJsonTest {
    private static EndpointInfo sample() {
        Map<String, RegionInfo> regions = new LinkedHashMap<>();
        regions.put("kv", new RegionInfo(0x7f00_1234_5678L, 1L << 33, Long.MIN_VALUE + 7, AccessFlags.ALL));
        regions.put("we\"ird\\ name\n", new RegionInfo(1, 0, -1, AccessFlags.LOCAL_WRITE));
        return new EndpointInfo("a", "inproc:a", 64, 256,
                List.of(new QpInfo("inproc:a", 1, -5, Long.MAX_VALUE), new QpInfo("inproc:a", 2, 7, -1)),
                new QpInfo("inproc:a", 3, 0, 42), new QpInfo("inproc:a", 4, Integer.MIN_VALUE, 0), regions);
    }

    @Test
    void infoSurvivesAJsonRoundTripExactly() {
        EndpointInfo info = sample();
        String json = info.toJson();
        assertThat(EndpointInfo.fromJson(json)).isEqualTo(info);
        assertThat(json).startsWith("{\"version\":1,").contains("\"regions\":{\"kv\":{\"address\":");
    }

    @Test
    void whitespaceKeyOrderAndUnknownKeysAreAccepted() {
        String json = """
                { "regions": {}, "future": [1, 2.5, true, null, {"x": "y"}],
                  "dataQp": {"token": 1, "psn": 2, "qpn": 3, "address": "inproc:b"},
                  "metaQp": {"address": "inproc:b", "qpn": 4, "psn": 5, "token": 6},
                  "ioQps": [ {"address": "inproc:b", "qpn": 7, "psn": 8, "token": 9} ],
                  "immWindow": 16, "messageSlots": 8, "address": "inproc:b", "name": "b\\u00e9", "version": 1 }
                """;
        EndpointInfo info = EndpointInfo.fromJson(json);
        assertThat(info.name()).isEqualTo("bé");
        assertThat(info.ioQps()).containsExactly(new QpInfo("inproc:b", 7, 8, 9));
        assertThat(info.messageSlots()).isEqualTo(8);
    }

    @Test
    void malformedOrIncompleteJsonIsRefusedWithAClearMessage() {
        String good = sample().toJson();
        assertThatThrownBy(() -> EndpointInfo.fromJson(good.substring(0, good.length() - 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed JSON");
        assertThatThrownBy(() -> EndpointInfo.fromJson(good + "x")).hasMessageContaining("trailing");
        assertThatThrownBy(() -> EndpointInfo.fromJson(good.replace("\"version\":1", "\"version\":2")))
                .hasMessageContaining("version 2 is not supported");
        assertThatThrownBy(() -> EndpointInfo.fromJson(good.replace("\"immWindow\":256,", "")))
                .hasMessageContaining("'immWindow' must be an integer");
        assertThatThrownBy(() -> EndpointInfo.fromJson(good.replace("\"qpn\":1", "\"qpn\":4294967297")))
                .hasMessageContaining("fit 32 bits");
        assertThatThrownBy(() -> EndpointInfo.fromJson("[1,2]")).hasMessageContaining("must be a JSON object");
        assertThatThrownBy(() -> EndpointInfo.fromJson("{\"a\":1,\"a\":2}")).hasMessageContaining("duplicate key");
        assertThatThrownBy(() -> EndpointInfo.fromJson(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EndpointInfo.fromJson("")).hasMessageContaining("malformed JSON");
        assertThatThrownBy(() -> EndpointInfo.fromJson(good.replace("\"qpn\":1", "\"qpn\":18446744073709551616")))
                .hasMessageContaining("does not fit 64 bits");
    }

    @Test
    void jsonWithoutAVersionIsRefusedAsAnOldFormat() {
        String unversioned = sample().toJson().replace("\"version\":1,", "");
        assertThatThrownBy(() -> EndpointInfo.fromJson(unversioned)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without a 'version'").hasMessageContaining("old or foreign format");
    }

    @Test
    void stringsWithControlAndNonAsciiCharactersRoundTrip() {
        Map<String, RegionInfo> regions = new LinkedHashMap<>();
        regions.put("\u0001tab\there \u00e9\u20ac \uD83D\uDE00", new RegionInfo(1, 2, 3, AccessFlags.ALL));
        EndpointInfo info = new EndpointInfo("n\"a\\me", "udp:[::1]:7", 8, 16,
                List.of(new QpInfo("udp:[::1]:7", 1, 2, 3)), new QpInfo("x", 4, 5, 6), new QpInfo("y", 7, 8, 9), regions);
        assertThat(EndpointInfo.fromJson(info.toJson())).isEqualTo(info);
    }
}
