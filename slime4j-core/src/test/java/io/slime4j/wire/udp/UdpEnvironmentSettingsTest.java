package io.slime4j.wire.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.RecordComponent;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link UdpConfig#environmentSettings()} lists exactly what fromEnvironment reads, by property and variable. */
class UdpEnvironmentSettingsTest {
    @Test
    void everyListedSettingIsReadFromItsPropertyAndItsVariableAndNamesARecordComponent() throws Exception {
        Map<String, String> settings = UdpConfig.environmentSettings();
        assertThat(settings).containsEntry("slime4j.udp.sendBufferSize", "SLIME4J_UDP_SEND_BUFFER_SIZE").hasSize(9);
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String component = e.getKey().substring(e.getKey().lastIndexOf('.') + 1);
            RecordComponent rc = java.util.Arrays.stream(UdpConfig.class.getRecordComponents())
                    .filter(c -> c.getName().equals(component)).findFirst().orElseThrow();
            boolean backend = rc.getType() == UdpConfig.Backend.class;
            boolean flag = rc.getType() == boolean.class;
            boolean defaultFlag = flag && (boolean) rc.getAccessor().invoke(UdpConfig.defaults());
            String text = backend ? "nio" : flag ? Boolean.toString(!defaultFlag)
                    : rc.getType() == String.class ? "udp:10.1.2.3" : "8192";
            Object expected = backend ? UdpConfig.Backend.NIO : flag ? (Object) !defaultFlag
                    : rc.getType() == String.class ? text : (Object) 8192;
            UdpConfig byProperty = UdpConfig.builder().applyEnvironment(k -> k.equals(e.getKey()) ? text : null, k -> null)
                    .build();
            UdpConfig byVariable = UdpConfig.builder().applyEnvironment(k -> null, k -> k.equals(e.getValue()) ? text : null)
                    .build();
            assertThat(rc.getAccessor().invoke(byProperty)).as(e.getKey()).isEqualTo(expected);
            assertThat(rc.getAccessor().invoke(byVariable)).as(e.getValue()).isEqualTo(expected);
        }
    }
}
